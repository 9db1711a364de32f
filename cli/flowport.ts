#!/usr/bin/env node
/**
 * The `flowport` command: `dev` (engine + worker + API), `api`, `worker`, `engine`, `credentials`.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const usage = `Usage: flowport <command>
  dev      embedded Temporal dev server (unless TEMPORAL_ADDRESS is set) + worker + API on HOST:PORT (127.0.0.1:3001)
  api      the API server alone (production entry; settings from the environment)
  worker   the worker alone (production entry; settings from the environment)
  engine   only the embedded Temporal dev server, until Ctrl-C
  credentials init|show|get|set|unset|edit   the encrypted credentials file (flowport credentials help)`

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
    // In this process, not a child: SIGTERM then reaches the worker's own handler and nothing is
    // left behind when this process is stopped.
    const { workerEntry } = await import('./worker-entry.js')
    await import(pathToFileURL(workerEntry).href)
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
  case 'credentials': {
    const { credentialsCommand, credentialsUsage } = await import('./credentials.js')
    const [sub] = process.argv.slice(3)
    if (sub === 'help' || sub === '--help' || sub === '-h') console.log(credentialsUsage)
    else process.exitCode = credentialsCommand(process.argv.slice(3))
    break
  }
  case undefined:
  case 'help':
  case '--help':
  case '-h':
    console.log(usage)
    process.exit(command === undefined ? 2 : 0)
    break
  default:
    console.error(`Unknown command: ${command}\n${usage}`)
    process.exit(2)
}
