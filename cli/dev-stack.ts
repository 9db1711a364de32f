/**
 * `flowport dev` / `npm start`: embedded Temporal (unless TEMPORAL_ADDRESS is set) + the object
 * store for traces and large payloads (unless SERVICE_TRACE_S3_BUCKET names a bucket of one's own)
 * + worker + API. The API runs in this process and supervises the others: a worker, engine or
 * store that exits is restarted (the engine and the store on the same data and port), so only
 * SIGTERM/SIGINT, or the end of the process that started this one (npm), stop the stack, and then
 * all of it: API, worker, engine, store.
 * Children run in their own process groups so that a terminal's Ctrl-C reaches only this process
 * and the order of the shutdown is this one's.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readWorkerEnv } from '@flowport/worker/env'
import { resolve } from 'node:path'
import { DEV_ENGINE_PORT, DEV_ENGINE_UI_PORT, devEngineDbFile, startEngine, type Engine, type EngineOptions } from './engine.js'
import { hasOwnBucket, startObjectStore, type ObjectStore, type ObjectStoreOptions } from './object-store.js'
import { onParentExit, supervise, type Supervised } from './supervise.js'
import { startApi } from '../server.js'
import { loadConfig } from '../plugins/external/config.js'
import { workerNodeArgs } from './worker-entry.js'
import { devLogStream } from './dev-log.js'
import { uiEnabled } from '../plugins/external/ui.js'

type Api = Awaited<ReturnType<typeof startApi>>

const log = (message: string): void => { console.log(`[dev] ${message}`) }

function startWorkerProcess (env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, workerNodeArgs, { env, stdio: 'inherit', detached: true })
}

/** versitygw's own default port, preferred for the store (FLOWPORT_STORE_PORT). */
const DEV_STORE_PORT = 7070

/** FLOWPORT_ENGINE_PORT / FLOWPORT_ENGINE_UI_PORT / FLOWPORT_STORE_PORT: where the embedded engine and the store listen (preferred). */
function enginePort (env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name]
  if (value === undefined || value === '') return fallback
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid setting ${name}=${JSON.stringify(value)}: Expected an integer from 0 to 65535`)
  return port
}

/** A bad setting is one line naming it, before anything starts; null when all are valid. */
function settingsError (env: NodeJS.ProcessEnv): string | null {
  try {
    loadConfig(env)
    readWorkerEnv(env)
    enginePort(env, 'FLOWPORT_ENGINE_PORT', DEV_ENGINE_PORT)
    enginePort(env, 'FLOWPORT_ENGINE_UI_PORT', DEV_ENGINE_UI_PORT)
    enginePort(env, 'FLOWPORT_STORE_PORT', DEV_STORE_PORT)
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
  const supervisors: { engine?: Supervised, worker?: Supervised, store?: Supervised } = {}
  const shutdown = async (code: number) => {
    if (stopping) return
    stopping = true
    log('Stopping Flowport …')
    await api?.close()
    await supervisors.worker?.stop(15_000)
    await supervisors.engine?.stop(10_000)
    await supervisors.store?.stop(10_000)
    process.exit(code)
  }
  process.on('SIGINT', () => { void shutdown(0) })
  process.on('SIGTERM', () => { void shutdown(0) })
  onParentExit(() => { log('The parent process ended'); void shutdown(0) })

  const storeStarted = hasOwnBucket(env) ? Promise.resolve(undefined) : startDevStore(env)
  if (!env.TEMPORAL_ADDRESS) {
    const options: EngineOptions = {
      dbFile: devEngineDbFile(env),
      port: enginePort(env, 'FLOWPORT_ENGINE_PORT', DEV_ENGINE_PORT),
      ui: true,
      uiPort: enginePort(env, 'FLOWPORT_ENGINE_UI_PORT', DEV_ENGINE_UI_PORT),
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
  const store = await storeStarted
  if (store) {
    Object.assign(env, store.settings)
    const again: ObjectStoreOptions = { dataDir: store.dataDir, port: store.port, strictPort: true, credentials: store.credentials }
    supervisors.store = supervise(store.process, {
      name: 'store',
      start: async () => (await startObjectStore(again)).process,
      log
    })
  }
  if (stopping) return
  supervisors.worker = supervise(startWorkerProcess(env), { name: 'worker', start: async () => startWorkerProcess(env), log })

  try {
    api = await startApi(env, { logStream: devLogStream() })
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
    store ? `  Store        ${store.endpoint} (S3, bucket ${env.SERVICE_TRACE_S3_BUCKET}: traces and large payloads; data in ${store.dataDir})` : '',
    'Press Ctrl-C to stop.', ''
  ].filter((l) => l !== '').join('\n'))
}

/**
 * The store for traces and large payloads, so that both work on a fresh clone. A machine that
 * cannot get its binary (no Go toolchain) still gets the rest of the stack, and one line that says
 * what is missing.
 */
async function startDevStore (env: NodeJS.ProcessEnv): Promise<ObjectStore | undefined> {
  try {
    return await startObjectStore({
      dataDir: resolve(env.FLOWPORT_DATA_DIR ?? '.flowport', 's3'),
      port: enginePort(env, 'FLOWPORT_STORE_PORT', DEV_STORE_PORT),
      log: (m) => { log(`store: ${m}`) }
    })
  } catch (err) {
    log(`store: not started, so POST /payloads answers 404 and traces stay in SERVICE_TRACE_DIR (set SERVICE_TRACE_S3_BUCKET for a bucket of your own): ${(err as Error).message.split('\n')[0]}`)
    return undefined
  }
}
