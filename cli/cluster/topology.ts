/**
 * The production topology on one machine (docs/cluster.md): PostgreSQL, the Temporal server on it,
 * the object store (versitygw, cli/object-store.ts) for traces and large payloads, Redis for the
 * rate limits, N API replicas and N workers (two of each by default) and a delivery worker, each its own
 * `flowport api` / `flowport worker` / `flowport deliveries` process on its own port — the commands
 * deploy/docker-compose.yml runs. Members share the engine, the store and Redis, nothing through a
 * disk: each has a trace directory of its own, as a container would. Every API replica gets the
 * same run-token secret, drawn at start (a browser's token from one replica is valid on all), and
 * the same Redis (a key's budget is one across the replicas), unless the environment sets
 * SERVICE_RUN_TOKEN_SECRETS or SERVICE_RATE_LIMIT_REDIS_URL. API
 * replicas and workers are supervised like the dev stack's worker (cli/supervise.ts): one that
 * dies is started again on the same port, as an orchestrator would. The current processes are
 * written to a state file (`cluster.json`) for tests and benchmarks that kill or measure them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { freePort } from '../engine.js'
import { supervise, type Supervised } from '../supervise.js'
import { findServerBinaries } from './server-binary.js'
import { startPostgres, type Postgres } from './postgres.js'
import { startRedisServer, type RedisServer } from './redis.js'
import { startTemporalServer, setupSchema, type TemporalServer } from './temporal-server.js'
import { startObjectStore, type ObjectStore } from '../object-store.js'

const fromSource = import.meta.url.endsWith('.ts')
const flowportEntry = fileURLToPath(new URL(fromSource ? '../flowport.ts' : '../flowport.js', import.meta.url))
/** `node <these> api` is `flowport api` (the image runs `node dist/cli/flowport.js api`). */
export const flowportNodeArgs = fromSource ? ['--import', 'tsx', '--conditions=flowport-source', flowportEntry] : [flowportEntry]

/** The `flowport` subcommand of each role: the same in the cluster and in deploy/docker-compose.yml. */
export const ROLE_COMMANDS = { api: ['api'], worker: ['worker'], deliveries: ['deliveries'] } as const

export type Role = keyof typeof ROLE_COMMANDS

export interface Member {
  name: string
  role: Role
  pid: number
  /** API: its base URL; worker and delivery worker: its probe server (`/health`, `/ready`). */
  url: string
}

/** What `cluster.json` holds. */
export interface ClusterState {
  temporal: { address: string, namespace: string, metricsUrl: string, pid: number }
  postgres: { address: string, pid: number }
  /** The Redis the cluster started; absent when SERVICE_RATE_LIMIT_REDIS_URL named one. */
  redis?: { address: string, pid: number }
  /** The S3 endpoint and bucket every member keeps traces and large payloads in. */
  store: { endpoint: string, bucket: string, pid: number }
  members: Member[]
}

export interface ClusterOptions {
  apis?: number
  workers?: number
  /** First API port (the next replicas take the next ones); free ones are chosen when taken. */
  apiPort?: number
  /** Settings for every API replica and worker on top of this process's environment. */
  env?: NodeJS.ProcessEnv
  log?: (message: string) => void
  /** Each line an API replica or worker prints, with its name; default: this process's stdout. */
  output?: (name: string, line: string) => void
}

export interface Cluster {
  state: ClusterState
  stateFile: string
  /** The running process of a member, if any (none while it is being restarted). */
  member: (name: string) => ChildProcess | undefined
  stop: () => Promise<void>
}

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String.fromCharCode(97 + i)}`)

function pipeLines (child: ChildProcess, name: string, output: (name: string, line: string) => void): void {
  for (const input of [child.stdout!, child.stderr!]) createInterface({ input }).on('line', (line) => { output(name, line) })
}

async function waitReady (url: string, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/ready`, { signal: AbortSignal.timeout(3000) })).status === 200) return
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`${name} was not ready at ${url}/ready within ${timeoutMs} ms`)
}

export async function startCluster (opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => {})
  const output = opts.output ?? ((name, line) => { console.log(`[${name}] ${line}`) })
  const stateDir = mkdtempSync(join(tmpdir(), 'flowport-cluster-'))
  const stateFile = join(stateDir, 'cluster.json')
  let pg: Postgres | undefined
  let temporal: TemporalServer | undefined
  let redis: RedisServer | undefined
  let store: ObjectStore | undefined
  const supervisors = new Map<string, Supervised>()
  const stop = async (): Promise<void> => {
    // Front to back: the APIs first (no new work), then the workers (running tasks finish), the engine, its database.
    const byRole = (role: Role) => [...supervisors].filter(([name]) => name.startsWith(role))
    await Promise.all(byRole('api').map(async ([, s]) => { await s.stop(10_000) }))
    await Promise.all([...byRole('worker'), ...byRole('deliveries')].map(async ([, s]) => { await s.stop(15_000) }))
    await temporal?.stop()
    await Promise.all([pg?.stop(), store?.stop(), redis?.stop()])
    rmSync(stateDir, { recursive: true, force: true })
  }

  try {
    const binaries = await findServerBinaries(log)
    log(`Temporal server: ${binaries.server} (${binaries.source})`)
    store = await startObjectStore({ dataDir: join(stateDir, 'store'), log })
    log(`Object store on ${store.endpoint} (versitygw; bucket ${store.settings.SERVICE_TRACE_S3_BUCKET})`)
    pg = await startPostgres({ log })
    await setupSchema(binaries, pg)
    log('Schema set up (temporal, temporal_visibility)')
    temporal = await startTemporalServer(binaries, pg)
    log(`Temporal server on ${temporal.address} (PostgreSQL persistence and visibility)`)
    const given = { ...process.env, ...opts.env }
    if (given.SERVICE_RATE_LIMIT_REDIS_URL === undefined) {
      redis = await startRedisServer({ log })
      log(`Redis on 127.0.0.1:${redis.port} (the API replicas' shared rate limits)`)
    }
    const shared: NodeJS.ProcessEnv = {
      SERVICE_RUN_TOKEN_SECRETS: given.SERVICE_RUN_TOKEN_SECRETS ?? randomBytes(32).toString('base64url'),
      SERVICE_RATE_LIMIT_REDIS_URL: given.SERVICE_RATE_LIMIT_REDIS_URL ?? redis!.url
    }

    const members: Member[] = []
    const state = (): ClusterState => ({
      temporal: { address: temporal!.address, namespace: temporal!.namespace, metricsUrl: temporal!.metricsUrl, pid: temporal!.process.pid ?? 0 },
      postgres: { address: `${pg!.host}:${pg!.port}`, pid: pg!.process.pid ?? 0 },
      ...(redis && { redis: { address: `127.0.0.1:${redis.port}`, pid: redis.process.pid ?? 0 } }),
      store: { endpoint: store!.endpoint, bucket: store!.settings.SERVICE_TRACE_S3_BUCKET, pid: store!.process.pid ?? 0 },
      members: members.map((m) => ({ ...m, pid: supervisors.get(m.name)?.current()?.pid ?? 0 }))
    })
    const save = (): void => { writeFileSync(stateFile, JSON.stringify(state(), null, 2)) }
    const common: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...store.settings,
      ...opts.env,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: temporal.namespace
    }
    const launch = (member: Member, memberEnv: NodeJS.ProcessEnv): void => {
      // A trace directory of its own: what one member wrote there, no other can read.
      const env = { ...memberEnv, SERVICE_TRACE_DIR: join(stateDir, member.name, 'traces') }
      const start = (): ChildProcess => {
        const child = spawn(process.execPath, [...flowportNodeArgs, ...ROLE_COMMANDS[member.role]], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
        pipeLines(child, member.name, output)
        return child
      }
      members.push(member)
      supervisors.set(member.name, supervise(start(), {
        name: member.name,
        start: async () => start(),
        restarted: save,
        log
      }))
    }

    // Workers first: an API replica is ready once a worker published the catalog and polls it.
    // And the delivery worker: completion webhooks of catalogs declared in a file.
    const workers = [...names('worker', opts.workers ?? 2).map((name) => ({ name, role: 'worker' as const })), { name: 'deliveries', role: 'deliveries' as const }]
    for (const { name, role } of workers) {
      const healthPort = await freePort()
      launch({ name, role, pid: 0, url: `http://127.0.0.1:${healthPort}` }, { ...common, SERVICE_WORKER_HEALTH_PORT: String(healthPort) })
    }
    let nextPort = opts.apiPort ?? 0
    for (const name of names('api', opts.apis ?? 2)) {
      const port = await freePort(nextPort)
      if (nextPort !== 0) nextPort = port + 1
      launch({ name, role: 'api', pid: 0, url: `http://127.0.0.1:${port}` }, { ...common, ...shared, HOST: '127.0.0.1', PORT: String(port) })
    }
    save()
    await Promise.all(members.map(async (m) => { await waitReady(m.url, m.name, 300_000) }))
    save()
    return { state: state(), stateFile, member: (name) => supervisors.get(name)?.current(), stop }
  } catch (err) {
    await stop()
    throw err
  }
}
