/**
 * Starts and stops an embedded Temporal dev server (`temporal server start-dev`) on free ports.
 * Used by `npm start` (persistent SQLite file, UI on) and by the test runner (headless).
 */
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, resolve } from 'node:path'
import { Connection } from '@temporalio/client'
import { tlsFromSettings, type TlsSettings } from '@flowport/core/tls'
import { ownServer } from './supervise.js'
import { findTemporalBinary } from './temporal-binary.js'

/** The embedded engine of `flowport dev` and `flowport engine`: Temporal's own ports, data under FLOWPORT_DATA_DIR. */
export const DEV_ENGINE_PORT = 7233
export const DEV_ENGINE_UI_PORT = 8233
export const devEngineDbFile = (env: NodeJS.ProcessEnv): string => resolve(env.FLOWPORT_DATA_DIR ?? '.flowport', 'temporal.db')

export interface EngineOptions {
  /** SQLite file; omitted = in-memory (nothing survives a restart). */
  dbFile?: string
  /** Preferred frontend port; a free one is chosen when it is taken (unless `strictPorts`). */
  port?: number
  /** Fail instead of choosing other ports: a restarted engine must be where its clients look. */
  strictPorts?: boolean
  /** Own process group: only this process stops it, not a terminal's Ctrl-C sent to the group. */
  detached?: boolean
  /** Serve the Temporal Web UI (on `uiPort`, else frontend port + 1000 when free). */
  ui?: boolean
  uiPort?: number
  namespace?: string
  startTimeoutMs?: number
  /** Dynamic configuration values on top of the launcher's own (docs/performance.md says why each). */
  dynamicConfig?: Record<string, string | number | boolean>
  /** SQLite pragmas for `dbFile` (default: write-ahead log, no sync per transaction). */
  sqlitePragmas?: string[]
  log?: (message: string) => void
}

export type Engine = Awaited<ReturnType<typeof startEngineOnce>>

export async function freePort (preferred = 0, strict = false): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (preferred !== 0 && err.code === 'EADDRINUSE' && !strict) resolve(freePort(0))
      else reject(err)
    })
    server.listen(preferred, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** The engine the settings name cannot be reached: the commands that need it exit 3. */
export class EngineUnreachableError extends Error {}

/**
 * A connection to the engine the settings name. The SDK's connect timeout (10 s) is for a
 * long-lived process; a command run in CI against an engine that is not there should say so now.
 */
export async function connectEngine (settings: TlsSettings & { TEMPORAL_ADDRESS: string }, timeoutMs = 3_000): Promise<Connection> {
  return await Connection.connect({ address: settings.TEMPORAL_ADDRESS, tls: tlsFromSettings(settings), apiKey: settings.TEMPORAL_API_KEY, connectTimeout: timeoutMs })
    .catch((err: unknown) => {
      throw new EngineUnreachableError(`Cannot reach the engine at ${settings.TEMPORAL_ADDRESS} (TEMPORAL_ADDRESS) within ${timeoutMs / 1000} s: ${(err as Error).message}`)
    })
}

/** Whether the engine's gRPC health service answers SERVING. */
async function serving (address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: '1s' })
  try {
    const health = await connection.withDeadline(Date.now() + 1000, () => connection.healthService.check({}))
    return health.status === 1 // SERVING
  } finally {
    await connection.close()
  }
}

/**
 * What the launcher sets on every dev server it starts. The last two take the waiting out of a
 * run (docs/performance.md): the dev server has a single history shard, so its limit of 20
 * transfer-queue reads a second (a run needs three) delayed every workflow task by ~30 ms, and the
 * 1 s timer shift pushed every timer shorter than a second to about one second.
 */
export const ENGINE_DYNAMIC_CONFIG: Record<string, string | number | boolean> = {
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': true,
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxTimeShift': '10ms'
}

/** The Temporal server's own values of the settings above, for benchmarks that compare. */
export const ENGINE_SERVER_DEFAULTS: Record<string, string | number | boolean> = {
  'history.transferProcessorMaxPollRPS': 20,
  'history.timerProcessorMaxTimeShift': '1s'
}

/**
 * SQLite in write-ahead mode without a sync per transaction: a commit survives the engine's crash
 * and loses at most the last transactions on a power cut, and a run no longer waits for the disk
 * (about 25 ms of every `hello` run; docs/performance.md).
 */
export const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal']

/** Start attempts when a port turned out taken: a port found free can be taken by another process before the engine binds it. */
const BIND_ATTEMPTS = 3

export async function startEngine (opts: EngineOptions = {}): Promise<Engine> {
  const log = opts.log ?? (() => {})
  const binary = await findTemporalBinary(log)
  log(`temporal CLI: ${binary.path} (from ${binary.source})`)
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEngineOnce(opts, binary)
    } catch (err) {
      // The engine names the taken port, but a bind failure inside its dependency graph panics with
      // a stack trace longer than the output kept, which then no longer holds the reason: an exit
      // before serving is taken for the same race (a binary that cannot start fails every attempt).
      const text = String(err)
      if (attempt >= BIND_ATTEMPTS || !(text.includes('address already in use') || text.startsWith('Error: temporal exited'))) throw err
      log(`the engine exited while starting (a port taken before it bound it?); starting again: ${text.split('\n')[0]}`)
    }
  }
}

async function startEngineOnce (opts: EngineOptions, binary: Awaited<ReturnType<typeof findTemporalBinary>>) {
  const port = await freePort(opts.port ?? 0, opts.strictPorts)
  const httpPort = await freePort(0)
  const metricsPort = await freePort(0)
  const namespace = opts.namespace ?? 'default'
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(httpPort),
    '--metrics-port', String(metricsPort), '--namespace', namespace, '--log-level', 'warn', '--log-format', 'json',
    ...Object.entries({ ...ENGINE_DYNAMIC_CONFIG, ...opts.dynamicConfig }).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`])]
  let uiUrl: string | null = null
  let uiPort: number | null = null
  if (opts.ui) {
    uiPort = await freePort(opts.uiPort ?? port + 1000, opts.strictPorts)
    args.push('--ui-port', String(uiPort))
    uiUrl = `http://127.0.0.1:${uiPort}`
  } else {
    args.push('--headless')
  }
  if (opts.dbFile) {
    mkdirSync(dirname(opts.dbFile), { recursive: true })
    args.push('--db-filename', opts.dbFile, ...(opts.sqlitePragmas ?? SQLITE_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma]))
  }

  const child = spawn(binary.path, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached })
  // If this process dies without stopping the engine, the engine goes down with it.
  const owned = ownServer(child, 'temporal')
  const address = `127.0.0.1:${port}`
  await owned.untilServing(async () => await serving(address), opts.startTimeoutMs ?? 60_000)
  return {
    address,
    port,
    uiPort,
    namespace,
    uiUrl,
    // The engine's Prometheus metrics.
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    binary: binary.path,
    process: child,
    stop: owned.stop
  }
}
