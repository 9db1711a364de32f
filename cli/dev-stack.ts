/**
 * `flowport dev` / `npm start`: embedded Temporal (unless TEMPORAL_ADDRESS is set) + worker + API
 * + the delivery worker (completion webhooks of declared catalogs: `flowport deliveries`),
 * and beside them, attached when it runs, the object store for large payloads (unless
 * SERVICE_TRACE_S3_BUCKET names a bucket of one's own; see `planDevStore`). The API runs in this
 * process and supervises the others: a worker, engine or store that exits is restarted (the
 * engine and the store on the same data and port), so only
 * SIGTERM/SIGINT, or the end of the process that started this one (npm), stop the stack, and then
 * all of it: API, worker, engine, store. The worker is reloaded when the workflow code it loaded
 * changes (cli/worker-reload.ts).
 * Children run in their own process groups so that a terminal's Ctrl-C reaches only this process
 * and the order of the shutdown is this one's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readWorkerEnv } from '@flowport/worker/env'
import { resolve } from 'node:path'
import { Type } from '@sinclair/typebox'
import { formatMs } from '@flowport/core/duration'
import { loadSettings } from '@flowport/core/settings'
import { DEV_ENGINE_PORT, DEV_ENGINE_UI_PORT, devEngineDbFile, freePort, startEngine, type Engine, type EngineOptions } from './engine.js'
import { STORE_BUCKET, hasOwnBucket, isLoopback, newStoreCredentials, startObjectStore, storeSettings, type ObjectStore, type ObjectStoreOptions } from './object-store.js'
import { findObjectStoreBinary, objectStoreBinaryPlan } from './object-store-binary.js'
import { onParentExit, supervise, type Supervised } from './supervise.js'
import { startApi } from '../server.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { deliveriesNodeArgs, workerNodeArgs } from './worker-entry.js'
import { devLogStream } from './dev-log.js'
import { watchAndReload } from './worker-reload.js'
import { uiEnabled } from '../plugins/external/ui.js'

type Api = Awaited<ReturnType<typeof startApi>>

const log = (message: string): void => { console.log(`[dev] ${message}`) }

/** A worker process; a reload's (`piped`) has its output go through this process, which reads it for the worker's error. */
function startWorkerProcess (env: NodeJS.ProcessEnv, args = workerNodeArgs, piped = false): ChildProcess {
  const child = spawn(process.execPath, args, { env, stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit', detached: true })
  child.stdout?.pipe(process.stdout, { end: false })
  child.stderr?.pipe(process.stderr, { end: false })
  return child
}

/** versitygw's own default port, preferred for the store (FLOWPORT_STORE_PORT). */
const DEV_STORE_PORT = 7070

const Port = (preferred: number) => Type.Integer({ minimum: 0, maximum: 65535, default: preferred })
/** Where the embedded engine and the store listen (preferred). */
const DevPorts = Type.Object({
  FLOWPORT_ENGINE_PORT: Port(DEV_ENGINE_PORT),
  FLOWPORT_ENGINE_UI_PORT: Port(DEV_ENGINE_UI_PORT),
  FLOWPORT_STORE_PORT: Port(DEV_STORE_PORT)
})
const devPorts = (env: NodeJS.ProcessEnv) => loadSettings(DevPorts, env, (message) => new Error(message))

/** A bad setting is one line naming it, before anything starts; null when all are valid. */
function settingsError (env: NodeJS.ProcessEnv): string | null {
  try {
    loadConfig(env)
    readWorkerEnv(env)
    devPorts(env)
    return null
  } catch (err) {
    return (err as Error).message
  }
}

export async function runDevStack (): Promise<void> {
  // Dev listens on loopback only unless HOST says otherwise (production `flowport api`: 0.0.0.0).
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: process.env.HOST || '127.0.0.1' }
  const invalid = settingsError(env)
  if (invalid !== null) {
    console.error(invalid)
    process.exit(1)
  }

  let stopping = false
  let api: Api | undefined
  let engine: Engine | undefined
  // Filled in as they start; a signal may come before any exists.
  const supervisors: { engine?: Supervised, worker?: Supervised, deliveries?: Supervised } = {}
  // Its port and keys now, before the engine: the worker and the API start with its settings.
  const store = hasOwnBucket(env) ? undefined : await planDevStore(env)
  let stopWatching: (() => void) | undefined
  const shutdown = async (code: number) => {
    if (stopping) return
    stopping = true
    log('Stopping Flowport …')
    stopWatching?.()
    await api?.close()
    await Promise.all([supervisors.worker?.stop(15_000), supervisors.deliveries?.stop(15_000)])
    await supervisors.engine?.stop(10_000)
    await store?.stop()
    process.exit(code)
  }
  process.on('SIGINT', () => { void shutdown(0) })
  process.on('SIGTERM', () => { void shutdown(0) })
  onParentExit(() => { log('The parent process ended'); void shutdown(0) })

  // One host: the API reads the worker's trace directory, so traces stay there rather than costing
  // every run a PUT in the worker and in the store (issue 55); the bucket holds large payloads.
  if (store) Object.assign(env, store.settings, { SERVICE_TRACE_S3_ENABLED: env.SERVICE_TRACE_S3_ENABLED ?? 'false' })
  void store?.attach()
  if (!env.TEMPORAL_ADDRESS) {
    const options: EngineOptions = {
      dbFile: devEngineDbFile(env),
      port: devPorts(env).FLOWPORT_ENGINE_PORT,
      ui: true,
      uiPort: devPorts(env).FLOWPORT_ENGINE_UI_PORT,
      detached: true,
      log: (m) => { log(`engine: ${m}`) }
    }
    try {
      engine = await startEngine(options)
    } catch (err) {
      console.error((err as Error).message)
      process.exit(1)
    }
    env.TEMPORAL_ADDRESS = engine.address
    // The inspector links each run to the same run in Temporal's UI.
    if (engine.uiUrl) env.SERVICE_UI_TEMPORAL_URL ??= engine.uiUrl
    // A restarted engine must be where the API and the worker already look.
    const again: EngineOptions = { ...options, port: engine.port, uiPort: engine.uiPort ?? undefined, strictPorts: true }
    supervisors.engine = supervise(engine.process, {
      name: 'engine',
      start: async () => {
        engine = await startEngine(again)
        return engine.process
      },
      log
    })
  }
  if (stopping) return
  supervisors.worker = supervise(startWorkerProcess(env), { name: 'worker', start: async () => startWorkerProcess(env), log })
  supervisors.deliveries = supervise(startWorkerProcess(env, deliveriesNodeArgs), { name: 'delivery worker', start: async () => startWorkerProcess(env, deliveriesNodeArgs), log })
  // FLOWPORT_RELOAD=false: no watch (a worker restarted only when it exits).
  if (env.FLOWPORT_RELOAD !== 'false') {
    stopWatching = watchAndReload({ env, worker: () => supervisors.worker, start: (extra) => startWorkerProcess({ ...env, ...extra }, workerNodeArgs, true), log })
  }

  try {
    api = await startApi(env, { logStream: devLogStream(), storeStarting: () => store?.starting() ?? null })
  } catch (err) {
    console.error((err as Error).message)
    await shutdown(1)
    return
  }
  const port = api.server.address()
  const base = `http://${env.HOST === '0.0.0.0' || env.HOST === '::' ? 'localhost' : env.HOST}:${typeof port === 'object' && port ? port.port : api.config.PORT}`
  console.log([
    '',
    'Flowport is running:',
    `  API          ${base}`,
    uiEnabled(api.config) ? `  Inspector    ${base}/ui/` : '',
    `  Swagger UI   ${base}/docs`,
    `  OpenAPI      ${base}/openapi.json`,
    `  Temporal     ${env.TEMPORAL_ADDRESS}${engine ? ' (embedded dev server)' : ''}`,
    engine?.uiUrl ? `  Temporal UI  ${engine.uiUrl}` : '',
    store?.line() ?? '',
    'Press Ctrl-C to stop.', ''
  ].filter((l) => l !== '').join('\n'))
  store?.bannerPrinted()
}

/** Why the store is not attached yet, and what to do: the message of the API's 503 (plugins/app/payloads/payloads.ts). */
const startingMessage = (first: boolean): string =>
  `The object store of \`npm start\` is starting${first ? ' (the first start downloads or builds it: a build takes minutes; later starts take a second)' : ''}: ` +
  'large payloads work once the log prints its `Store` line; retry later'

/**
 * The store for large payloads, so that they work on a fresh clone, attached beside
 * the rest of the stack instead of before it: its first build takes minutes, and nothing else
 * needs it. Its port and keys are chosen here and the API and the worker start at once with the
 * settings of the store that will be (SERVICE_TRACE_S3_BUCKET, SERVICE_CLOUD_*). Until it answers
 * they see what they see of a store that is down (docs/production.md, the production checklist): the API answers
 * payload calls 503 PayloadStorageUnavailableError with Retry-After and a message that says the
 * store is starting (`starting`, before any storage call, so nothing waits). This rather than
 * starting the API and the worker without a store and restarting them once it runs: the API runs
 * in this process and would drop its listener, and a restarted worker would cut runs' steps.
 * A machine that cannot get the binary (no published release for the platform and no Go
 * toolchain) gets the rest of the stack without a store, and one line that says what is missing.
 */
async function planDevStore (env: NodeJS.ProcessEnv) {
  const plan = objectStoreBinaryPlan()
  if (typeof plan === 'object') {
    log(`store: not started, so POST /payloads answers 404 and traces stay in SERVICE_TRACE_DIR (set SERVICE_TRACE_S3_BUCKET for a bucket of your own): ${plan.missing}`)
    return undefined
  }
  const options: ObjectStoreOptions = {
    dataDir: resolve(env.FLOWPORT_DATA_DIR ?? '.flowport', 's3'),
    // Chosen now, listened on later (and not held meanwhile, so that calls to it are refused at
    // once): the other ports of the stack are asked for by number or are ephemeral ones, which
    // only a preferred port already taken could be (then a start fails and is retried).
    port: await freePort(devPorts(env).FLOWPORT_STORE_PORT),
    strictPort: true,
    host: isLoopback(env.HOST!) ? '127.0.0.1' : env.HOST,
    credentials: newStoreCredentials(),
    log: (m) => { log(`store: ${m}`) }
  }
  // Presigned URLs name the address clients upload to: on a HOST others reach, 127.0.0.1 is not it.
  if (!isLoopback(env.HOST!) && !env.SERVICE_CLOUD_PUBLIC_ENDPOINT) {
    log(`store: listens on ${env.HOST}:${options.port}, but upload and download URLs name 127.0.0.1, which only this machine reaches; ` +
      `for clients on other machines set SERVICE_CLOUD_PUBLIC_ENDPOINT=http://<this machine's name>:${options.port}`)
  }
  const abort = new AbortController()
  const began = Date.now()
  let starting: string | null = startingMessage(plan === 'fetch')
  let running: ObjectStore | undefined
  let supervisor: Supervised | undefined
  let banner = false
  let stopped = false
  const line = (): string | undefined => running &&
    `  Store        ${running.endpoint} (S3, bucket ${STORE_BUCKET}: large payloads; data in ${running.dataDir})`

  return {
    settings: storeSettings(options.port!, options.credentials!),
    starting: () => starting,
    /** The banner's line: where the store is, or that it is starting. */
    line: (): string => line() ?? `  Store        starting${plan === 'fetch' ? ' (first start: versitygw is downloaded, or built in minutes)' : ''}; until then POST /payloads and large results answer 503`,
    bannerPrinted (): void { banner = true },
    /**
     * Gets the binary (building it the first time), then starts the store, retrying a start that
     * fails (backoff 0.5 s doubling to 10 s, as restarts); a binary that cannot be had is not
     * retried (a build is minutes of CPU) and the message says so.
     */
    async attach (): Promise<void> {
      try {
        await findObjectStoreBinary(options.log, abort.signal)
      } catch (err) {
        if (stopped) return
        const reason = (err as Error).message.split('\n')[0]
        starting = `The object store of \`npm start\` could not be started (${reason}): large payloads do not work until \`npm start\` is restarted`
        log(`store: not started, so POST /payloads answers 503 and traces stay in SERVICE_TRACE_DIR: ${reason}`)
        return
      }
      for (let backoff = 500; ; backoff = Math.min(backoff * 2, 10_000)) {
        if (stopped) return
        try {
          running = await startObjectStore(options)
          break
        } catch (err) {
          if (stopped) return
          log(`store did not start (${(err as Error).message.split('\n')[0]}); retrying in ${formatMs(backoff)}`)
          await new Promise((resolve) => setTimeout(resolve, backoff))
        }
      }
      if (stopped) { await running.stop(); return }
      const again = { ...options, log: undefined }
      supervisor = supervise(running.process, { name: 'store', start: async () => (await startObjectStore(again)).process, log })
      starting = null
      if (banner) console.log(`[dev] store attached after ${formatMs(Date.now() - began)}:\n${line()}\n`)
    },
    async stop (): Promise<void> {
      stopped = true
      abort.abort()
      await supervisor?.stop(10_000)
    }
  }
}
