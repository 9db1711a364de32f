#!/usr/bin/env node
/**
 * The `flowport` command. Servers: `dev` (engine + worker + API), `cluster` (PostgreSQL + Temporal
 * server + object store + API replicas + workers), `api`, `worker`, `deliveries`, `engine`, `bucket`,
 * `credentials`, `keys`, `replay` (the determinism check before a deploy). Client commands (cli/client/, on @flowport/client): `run`, `start`, `tail`,
 * `status`, `result`, `input`, `trace`, `signal`, `query`, `update`, `stop`, `terminate`, `runs`,
 * `catalog`, `eval`. Exit codes: docs/cli.md.
 */
import { pathToFileURL } from 'node:url'
import { Command, CommanderError, InvalidArgumentError } from 'commander'
import { DEFAULT_PORT } from '@flowport/core/api'

const SERVER_COMMANDS = ['dev', 'cluster', 'api', 'worker', 'deliveries', 'engine', 'replay', 'bucket', 'credentials', 'keys']

function positive (value: string, name: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new InvalidArgumentError(`${name} takes a whole number from 1 (got ${value})`)
  return n
}

const program = new Command('flowport')
  .usage('<command>')
  .description('Flowport: run the service (dev, cluster, api, worker, engine), or call it (run, tail, status, …; FLOWPORT_URL, FLOWPORT_TOKEN).')
  .exitOverride()
  .configureOutput({ getOutHelpWidth: () => 160, getErrHelpWidth: () => 160 })

program.command('dev')
  .description(`embedded Temporal dev server (unless TEMPORAL_ADDRESS is set) + worker + API on HOST:PORT (127.0.0.1:${DEFAULT_PORT}); ` +
    'the worker reloads when its workflow code changes (FLOWPORT_RELOAD=false: not; docs/authoring.md)')
  .action(async () => {
    const { runDevStack } = await import('./dev-stack.js')
    await runDevStack()
  })

program.command('api')
  .description('the API server alone (production entry; settings from the environment)')
  .action(async () => {
    const { main } = await import('../server.js')
    await main()
  })

// In this process, not a child: SIGTERM then reaches the worker's own handler and nothing is left
// behind when this process is stopped. `deliveries`: the same entry, which reads it from the arguments.
for (const [name, description] of [
  ['worker', 'the worker alone (production entry; settings from the environment)'],
  ['deliveries', 'the delivery worker alone: completion webhooks of catalogs declared in a file (production entry; the worker\'s settings; docs/webhooks.md)']
]) {
  program.command(name).description(description).action(async () => {
    const { workerEntry } = await import('./worker-entry.js')
    await import(pathToFileURL(workerEntry).href)
  })
}

program.command('engine')
  .description('only the embedded Temporal dev server, until Ctrl-C')
  .action(async () => {
    const { DEV_ENGINE_PORT, DEV_ENGINE_UI_PORT, devEngineDbFile, startEngine } = await import('./engine.js')
    const engine = await startEngine({ dbFile: devEngineDbFile(process.env), port: DEV_ENGINE_PORT, ui: true, uiPort: DEV_ENGINE_UI_PORT, log: console.log })
    console.log(`Temporal at ${engine.address}${engine.uiUrl ? `, UI at ${engine.uiUrl}` : ''}. Ctrl-C to stop.`)
    const stop = () => { void engine.stop().then(() => process.exit(0)) }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })

/** The settings the command reads, for `--help` (the worker's: worker/src/env.ts; cli/replay.ts). */
const REPLAY_SETTINGS = `
Settings (the worker's, from the environment):
  TEMPORAL_ADDRESS (localhost:7233), TEMPORAL_NAMESPACE (default),
  TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_SERVER_NAME,
  TEMPORAL_TLS_CA_PATH, TEMPORAL_TLS_CERT_PATH, TEMPORAL_TLS_KEY_PATH   the engine (not read with --history)
  SERVICE_CATALOG_ID (main)                                            the catalog whose runs are replayed
  SERVICE_WORKFLOWS_DIR (./workflows)                                  the new code
  SERVICE_WORKER_DEPLOYMENT_NAME (the catalog id),
  SERVICE_WORKER_BUILD_ID (derived from the code)                      the version the new code will poll as: runs pinned
                                                                       to another one are skipped unless --all
  SERVICE_TRACE_S3_BUCKET, SERVICE_PAYLOAD_*, SERVICE_CLOUD_*          large payloads stored by reference

Exit codes: 0 every run replays, 1 a run diverged (or the workflows do not build),
2 a usage error (an unknown workflow, a file that is not a history), 3 the engine cannot be reached.`

program.command('replay')
  .description('replay recent runs of the catalog (SERVICE_CATALOG_ID) from the engine, or history files, against the local workflow code; exit 1 when one diverges. ' +
    'From the engine, only the runs this code will run: runs pinned to another version are skipped (counted) unless --all')
  .option('--since <duration>', 'closed runs count when they closed within this window (open runs always count), e.g. 30m, 24h, 7d', '24h')
  .option('--limit <n>', 'runs replayed per workflow (the engine lists open runs first, then the most recently closed)', (v) => positive(v, '--limit'), 20)
  .option('--workflow <name>', 'only this workflow (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
  .option('--history <file...>', 'replay these history files (Temporal\'s JSON format, whatever their version) instead of asking the engine')
  .option('--all', 'replay runs pinned to other versions too (runs this code never meets)')
  .addHelpText('after', REPLAY_SETTINGS)
  .action(async (opts: { since: string, limit: number, workflow: string[], history?: string[], all?: boolean }) => {
    const { replayCommand, windowMs } = await import('./replay.js')
    const sinceMs = windowMs(opts.since)
    if (sinceMs === null) {
      console.error(`error: option '--since <duration>' takes a duration such as 30m, 24h or 7d (got ${opts.since})`)
      process.exitCode = 2
      return
    }
    process.exitCode = await replayCommand({ sinceMs, limit: opts.limit, workflows: opts.workflow, historyFiles: opts.history ?? [], all: opts.all === true }, process.env, console.log, console.error)
  })

program.command('cluster')
  .description('the production topology here: PostgreSQL + Temporal server + API replicas + workers (docs/cluster.md)')
  .option('--apis <n>', 'API replicas', (v) => positive(v, '--apis'), 2)
  .option('--workers <n>', 'workers', (v) => positive(v, '--workers'), 2)
  .option('--port <port>', 'port of the first API replica (the next ones follow)', (v) => positive(v, '--port'), DEFAULT_PORT)
  .option('--prepare', 'only build or fetch what the cluster runs (the Temporal server, the object store) into the cache, then exit')
  .action(async (opts: { apis: number, workers: number, port: number, prepare?: boolean }) => {
    const { prepareCluster, runCluster } = await import('./cluster/command.js')
    await (opts.prepare === true ? prepareCluster() : runCluster(opts))
  })

program.command('bucket')
  .description('create the bucket SERVICE_TRACE_S3_BUCKET names (SERVICE_CLOUD_* settings); one that exists is fine')
  .action(async () => {
    const { bucketCommand } = await import('./bucket.js')
    process.exitCode = await bucketCommand(process.env)
  })

program.command('credentials')
  .description('init|show|get|set|unset|edit the encrypted credentials file (flowport credentials help)')
  .argument('[args...]')
  // Its own parser (cli/credentials.ts) reads the arguments, options included.
  .helpOption(false)
  .allowUnknownOption()
  .allowExcessArguments()
  .action(async () => {
    const { credentialsCommand, credentialsUsage } = await import('./credentials.js')
    const args = process.argv.slice(process.argv.indexOf('credentials') + 1)
    const [sub] = args
    if (sub === 'help' || sub === '--help' || sub === '-h') console.log(credentialsUsage)
    else process.exitCode = credentialsCommand(args)
  })

const [command] = process.argv.slice(2)
// Loaded only when used (its schema checks cost every other command's start); listed in help either way.
if (command === 'keys') program.addCommand((await import('./keys.js')).keysCommand())
else program.command('keys').description('create|list|remove API keys in the keys file (flowport keys --help)')
// `catalog publish|show|remove` (catalog files, engine side); any other `catalog` is the client's (a catalog's workflows).
const DECLARING = ['publish', 'show', 'remove']
const declaring = command === 'catalog' && DECLARING.includes(process.argv[3] ?? '')
// `catalog help` is the command's help (both kinds), not a workflow named help.
if (command === 'catalog' && process.argv[3] === 'help' && process.argv.length === 4) process.argv[3] = '--help'
if (declaring) program.addCommand((await import('./catalog/command.js')).catalogCommand())

// The server entries never load the client (the production image runs them).
if (!SERVER_COMMANDS.includes(command ?? '') && !declaring) {
  const { registerClientCommands } = await import('./client/index.js')
  registerClientCommands(program)
}

const known = new Set(['help', ...program.commands.map((c) => c.name())])
if (command === undefined) {
  console.log(program.helpInformation().trimEnd())
  process.exitCode = 2
} else if (!command.startsWith('-') && !known.has(command)) {
  // A subcommand's name given alone (`flowport show`): name the commands it belongs to.
  const under = [...program.commands.filter((c) => c.commands.some((s) => s.name() === command)).map((c) => c.name()), ...(DECLARING.includes(command) ? ['catalog'] : [])]
  const meant = under.length === 0 ? '' : ` (a subcommand: ${under.map((c) => `flowport ${c} ${command}`).join(', ')})`
  console.error(`Unknown command: ${command}${meant}\n${program.helpInformation().trimEnd()}`)
  process.exitCode = 2
} else {
  try {
    await program.parseAsync(process.argv)
  } catch (err) {
    // Commander already printed its one-line message (unknown option, missing argument, …).
    if (!(err instanceof CommanderError)) throw err
    process.exitCode = err.exitCode === 0 ? 0 : 2
  }
}
