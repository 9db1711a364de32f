/**
 * `flowport dev` / `npm start`: embedded Temporal (unless TEMPORAL_ADDRESS is set) + worker + API.
 * Children run in their own process groups so a terminal Ctrl-C reaches only this process, which
 * then stops them in order: API, worker, engine — no orphan, no worker talking to a dead engine.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { startEngine, type Engine } from './engine.js'
import { startApi } from '../server.js'
import { workerNodeArgs } from './worker-entry.js'

type Api = Awaited<ReturnType<typeof startApi>>

function startWorkerProcess (env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, workerNodeArgs, {
    env, stdio: 'inherit', detached: true
  })
}

function stopChild (child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => { clearTimeout(force); done() })
    child.kill('SIGTERM')
  })
}

export async function runDevStack (): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  let engine: Engine | undefined
  if (!env.TEMPORAL_ADDRESS) {
    engine = await startEngine({
      dbFile: resolve(env.FLOWPORT_DATA_DIR ?? '.flowport', 'temporal.db'), port: 7233, ui: true, uiPort: 8233, log: (m) => console.log(`[engine] ${m}`)
    })
    env.TEMPORAL_ADDRESS = engine.address
  }
  const worker = startWorkerProcess(env)
  process.once('exit', () => { worker.kill('SIGKILL') })
  let api: Api | undefined
  let stopping = false

  const shutdown = async (code: number) => {
    if (stopping) return
    stopping = true
    console.log('\nStopping Flowport …')
    await api?.close()
    await stopChild(worker, 15_000)
    await engine?.stop()
    process.exit(code)
  }
  process.on('SIGINT', () => { void shutdown(0) })
  process.on('SIGTERM', () => { void shutdown(0) })
  worker.once('exit', (code) => {
    if (!stopping) {
      console.error(`The worker exited (code ${code}); stopping.`)
      void shutdown(1)
    }
  })

  try {
    api = await startApi(env)
  } catch (err) {
    console.error(err)
    await shutdown(1)
    return
  }
  const port = api.server.address()
  const base = `http://localhost:${typeof port === 'object' && port ? port.port : env.PORT ?? 3001}`
  console.log([
    '',
    'Flowport is running:',
    `  API          ${base}`,
    `  Swagger UI   ${base}/docs`,
    `  OpenAPI      ${base}/openapi.json`,
    `  Temporal     ${env.TEMPORAL_ADDRESS}${engine ? ' (embedded dev server)' : ''}`,
    engine?.uiUrl ? `  Temporal UI  ${engine.uiUrl}` : '',
    'Press Ctrl-C to stop.', ''
  ].filter((l) => l !== '').join('\n'))
}
