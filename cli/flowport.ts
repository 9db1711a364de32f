#!/usr/bin/env node
/**
 * The `flowport` command: `dev` (engine + worker + API), `api`, `worker`, `engine`.
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'

const usage = `Usage: flowport <command>
  dev      embedded Temporal dev server (unless TEMPORAL_ADDRESS is set) + worker + API on PORT (3001)
  api      the API server alone (production entry; settings from the environment)
  worker   the worker alone (production entry; settings from the environment)
  engine   only the embedded Temporal dev server, until Ctrl-C`

const [command] = process.argv.slice(2)
switch (command) {
  case 'dev': {
    const { runDevStack } = await import('./dev-stack.js')
    await runDevStack()
    break
  }
  case 'api': {
    const { main } = await import('../server.js')
    await main()
    break
  }
  case 'worker': {
    // The worker has its own signal handling; it runs as a child with the terminal's signals.
    const { workerNodeArgs } = await import('./worker-entry.js')
    const child = spawn(process.execPath, workerNodeArgs, { stdio: 'inherit' })
    child.on('exit', (code) => process.exit(code ?? 1))
    break
  }
  case 'engine': {
    const { startEngine } = await import('./engine.js')
    const engine = await startEngine({ dbFile: resolve(process.env.FLOWPORT_DATA_DIR ?? '.flowport', 'temporal.db'), port: 7233, ui: true, uiPort: 8233, log: console.log })
    console.log(`Temporal at ${engine.address}${engine.uiUrl ? `, UI at ${engine.uiUrl}` : ''}. Ctrl-C to stop.`)
    const stop = () => { void engine.stop().then(() => process.exit(0)) }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    break
  }
  default:
    console.error(usage)
    process.exit(command ? 1 : 0)
}
