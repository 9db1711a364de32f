/**
 * The Temporal server of the cluster topology on PostgreSQL: the schema set up with the server's
 * own SQL tool (the same commands deploy/docker-compose.yml runs), a minimal config written here,
 * all four services (frontend, history, matching, worker) in one process on free loopback ports,
 * and the namespace registered once the frontend serves.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Connection } from '@temporalio/client'
import Long from 'long'
import { stringify } from 'yaml'
import { ENGINE_DYNAMIC_CONFIG, freePort } from '../engine.js'
import { ownServer } from '../supervise.js'
import type { ServerBinaries } from './server-binary.js'
import type { Postgres } from './postgres.js'

const run = promisify(execFile)

export const SQL_PLUGIN = 'postgres12'
export const DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const
export const HISTORY_SHARDS = 4

/**
 * The schema tool's commands, connection settings from SQL_HOST/SQL_PORT/SQL_USER/SQL_PASSWORD/
 * SQL_PLUGIN. The first two are quiet (no error status) so that running them again on a set-up
 * database (as `docker compose up` does) is harmless; update-schema applies only what is missing.
 * test/deploy.test.ts checks that deploy/docker-compose.yml runs exactly these.
 */
export const SCHEMA_COMMANDS: string[][] = [
  ['--quiet', '--db', DATABASES.default, 'create-database'],
  ['--quiet', '--db', DATABASES.default, 'setup-schema', '-v', '0.0'],
  ['--db', DATABASES.default, 'update-schema', '--schema-name', 'postgresql/v12/temporal'],
  ['--quiet', '--db', DATABASES.visibility, 'create-database'],
  ['--quiet', '--db', DATABASES.visibility, 'setup-schema', '-v', '0.0'],
  ['--db', DATABASES.visibility, 'update-schema', '--schema-name', 'postgresql/v12/visibility']
]

/**
 * The dev server's values (cli/engine.ts, docs/performance.md), plus a one-second namespace cache
 * refresh: a namespace registered at start is served a second later instead of ten.
 */
export const CLUSTER_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  ...ENGINE_DYNAMIC_CONFIG,
  'system.namespaceCacheRefreshInterval': '1s'
}

export type TemporalServer = Awaited<ReturnType<typeof startTemporalServer>>

export async function setupSchema (binaries: ServerBinaries, pg: Postgres): Promise<void> {
  const env = { ...process.env, SQL_HOST: pg.host, SQL_PORT: String(pg.port), SQL_USER: pg.user, SQL_PASSWORD: '', SQL_PLUGIN }
  for (const args of SCHEMA_COMMANDS) {
    try {
      await run(binaries.sqlTool, args, { env, timeout: 120_000 })
    } catch (err) {
      const { stdout = '', stderr = '' } = err as { stdout?: string, stderr?: string }
      throw new Error(`temporal-sql-tool ${args.join(' ')} failed:\n${(stdout + stderr).trim().split('\n').slice(-5).join('\n')}`)
    }
  }
}

function datastore (pg: Postgres, database: string, maxConns: number) {
  return {
    sql: {
      pluginName: SQL_PLUGIN,
      databaseName: database,
      connectAddr: `${pg.host}:${pg.port}`,
      connectProtocol: 'tcp',
      user: pg.user,
      password: '',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h'
    }
  }
}

/**
 * A free port below 32768: the SQL schema keeps membership ports in a `smallint` (PostgreSQL's is
 * signed), and the kernel's ephemeral ports, which a port-0 bind returns, start at 32768.
 */
async function freeMembershipPort (): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    try {
      return await freePort(port, true)
    } catch (err) {
      if (attempt >= 50) throw err
    }
  }
}

async function serverConfig (pg: Postgres, dynamicConfigFile: string) {
  const ports = async () => ({ grpcPort: await freePort(), membershipPort: await freeMembershipPort(), bindOnLocalHost: true })
  const frontend = { ...await ports(), httpPort: await freePort() }
  const metricsPort = await freePort()
  return {
    metricsPort,
    frontendPort: frontend.grpcPort,
    config: {
      log: { stdout: true, level: 'warn', format: 'json' },
      persistence: {
        defaultStore: 'postgres-default',
        visibilityStore: 'postgres-visibility',
        numHistoryShards: HISTORY_SHARDS,
        datastores: {
          'postgres-default': datastore(pg, DATABASES.default, 20),
          'postgres-visibility': datastore(pg, DATABASES.visibility, 10)
        }
      },
      global: {
        membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
        metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${metricsPort}` } }
      },
      services: {
        frontend: { rpc: frontend },
        history: { rpc: await ports() },
        matching: { rpc: await ports() },
        worker: { rpc: await ports() }
      },
      clusterMetadata: {
        enableGlobalNamespace: false,
        failoverVersionIncrement: 10,
        masterClusterName: 'active',
        currentClusterName: 'active',
        clusterInformation: { active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${frontend.grpcPort}` } }
      },
      dcRedirectionPolicy: { policy: 'noop' },
      archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
      namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
      dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' }
    }
  }
}

/** Registers `namespace` (again, harmlessly) and tells whether the frontend serves it yet (the namespace cache refreshes). */
async function servesNamespace (address: string, namespace: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: '2s' })
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(3 * 24 * 3600) } })
      .catch((err: { code?: number }) => { if (err.code !== 6) throw err }) // 6: ALREADY_EXISTS
    await connection.workflowService.countWorkflowExecutions({ namespace, query: '' })
    return true
  } finally {
    await connection.close()
  }
}

export async function startTemporalServer (binaries: ServerBinaries, pg: Postgres, opts: { namespace?: string, startTimeoutMs?: number } = {}) {
  const namespace = opts.namespace ?? 'default'
  const dir = mkdtempSync(join(tmpdir(), 'flowport-temporal-'))
  const dynamicConfigFile = join(dir, 'dynamic-config.yaml')
  writeFileSync(dynamicConfigFile, stringify(Object.fromEntries(Object.entries(CLUSTER_DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value }]]))))
  const { config, frontendPort, metricsPort } = await serverConfig(pg, dynamicConfigFile)
  const configFile = join(dir, 'temporal.yaml')
  writeFileSync(configFile, stringify(config))

  const child = spawn(binaries.server, ['--config-file', configFile, '--allow-no-auth', 'start'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const { stop, untilServing } = ownServer(child, 'the Temporal server', { keepChars: 8000, graceMs: 15_000, dir })
  const address = `127.0.0.1:${frontendPort}`
  await untilServing(async () => await servesNamespace(address, namespace), opts.startTimeoutMs ?? 120_000, 500)
  return { address, namespace, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, process: child, stop }
}
