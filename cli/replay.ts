/**
 * `flowport replay`: the check before a deploy. Takes the recent histories of the catalog's
 * workflows from the engine (open runs, and runs closed within the window), or history files in
 * Temporal's JSON format, and replays them against the local workflow code; a run the code no
 * longer reproduces is printed with its first diverging event and the command exits 1, so CI can
 * gate the deploy (README, "Changing workflows safely").
 * Settings are the worker's (TEMPORAL_*, SERVICE_CATALOG_ID, SERVICE_WORKFLOWS_DIR, payloads).
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import { buildWorkflowBundle, DefinitionError, replayRuns, type RecordedRun } from '@flowport/worker'
import { readWorkerEnv, workerLogger, WorkerConfigError, type WorkerEnv } from '@flowport/worker/env'
import { ClaimCheckCodec, payloadSettingsFrom, PayloadStore } from '@flowport/core/payloads'
import { tlsFromSettings } from '@flowport/core/tls'
import { durationMs } from '../lib/duration.js'
import { quote } from '../lib/visibility-query.js'
import type { Duration } from '../schemas/schedules.js'

export interface ReplayOptions {
  /** Closed runs count when they closed within this many ms (open runs always count). */
  sinceMs: number
  /** Runs per workflow, in the engine's order (open runs, then the most recently closed). */
  limit: number
  /** Only these workflows (names or aliases of the catalog); empty: all. */
  workflows: string[]
  /** History files to replay instead of asking the engine. */
  historyFiles: string[]
}

/** Exit codes (README, "Changing workflows safely"): 0 every run replays, then these. */
export const EXIT_DIVERGED = 1
export const EXIT_USAGE = 2
export const EXIT_ENGINE = 3

/** `--since`: a duration as the API writes them (`30m`, `24h`, `7d`); null when it is not one. */
export function windowMs (value: string): number | null {
  if (!/^\d+(ms|s|m|h|d)$/.test(value)) return null
  return durationMs(value as Duration)
}

type Print = (line: string) => void

/** Open runs and those closed since `since`, of these workflow types on the catalog's task queue. */
export function replayQuery (catalogId: string, types: string[], since: Date): string {
  return `TaskQueue = ${quote(catalogId)} AND WorkflowType IN (${types.map(quote).join(', ')}) AND (ExecutionStatus = "Running" OR CloseTime >= ${quote(since.toISOString())})`
}

function fromFile (file: string): RecordedRun {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { events?: Array<Record<string, any>> }
  const started = json.events?.[0]?.workflowExecutionStartedEventAttributes
  if (started === undefined) throw new Error(`${file}: not a Temporal history (its first event must be WorkflowExecutionStarted)`)
  return {
    workflowId: basename(file),
    runId: String(started.originalExecutionRunId ?? '?'),
    workflowType: String(started.workflowType?.name ?? '?'),
    history: historyFromJSON(json)
  }
}

async function * fromEngine (client: Client, catalogId: string, names: Array<{ name: string, types: string[] }>, options: ReplayOptions): AsyncGenerator<RecordedRun> {
  const since = new Date(Date.now() - options.sinceMs)
  for (const { types } of names) {
    let taken = 0
    for await (const execution of client.workflow.list({ query: replayQuery(catalogId, types, since), pageSize: Math.min(options.limit, 1000) })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory()
      yield { workflowId: execution.workflowId, runId: execution.runId, workflowType: execution.type, history }
      if (++taken >= options.limit) break
    }
  }
}

export async function replayCommand (options: ReplayOptions, env: Record<string, string | undefined>, out: Print, err: Print): Promise<number> {
  let config: WorkerEnv
  try {
    config = readWorkerEnv(env)
  } catch (e) {
    if (!(e instanceof WorkerConfigError)) throw e
    err(e.message)
    return EXIT_USAGE
  }
  const logger = workerLogger({ NODE_ENV: config.NODE_ENV, LOG_LEVEL: 'warn' })
  let built: Awaited<ReturnType<typeof buildWorkflowBundle>>
  try {
    built = await buildWorkflowBundle({ catalogId: config.SERVICE_CATALOG_ID, workflowsDir: config.SERVICE_WORKFLOWS_DIR, logger })
  } catch (e) {
    if (!(e instanceof DefinitionError)) throw e
    err(`The workflows do not build: ${e.message}`)
    return EXIT_DIVERGED
  }
  const { bundle, catalog } = built

  const known = catalog.workflows.map((w) => ({ name: w.name, types: [w.name, ...w.aliases] }))
  const unknown = options.workflows.filter((name) => !known.some((w) => w.types.includes(name)))
  if (unknown.length > 0) {
    err(`Not in catalog ${catalog.catalog}: ${unknown.join(', ')} (its workflows: ${known.map((w) => w.name).join(', ') || 'none'})`)
    return EXIT_USAGE
  }
  const chosen = options.workflows.length === 0 ? known : known.filter((w) => w.types.some((t) => options.workflows.includes(t)))

  let runs: AsyncIterable<RecordedRun> | RecordedRun[]
  let connection: Connection | undefined
  if (options.historyFiles.length > 0) {
    try {
      runs = options.historyFiles.map(fromFile)
    } catch (e) {
      err((e as Error).message)
      return EXIT_USAGE
    }
  } else {
    try {
      connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS, tls: tlsFromSettings(config), apiKey: config.TEMPORAL_API_KEY })
    } catch (e) {
      err(`Cannot reach the engine at ${config.TEMPORAL_ADDRESS}: ${(e as Error).message}`)
      return EXIT_ENGINE
    }
    const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE })
    runs = fromEngine(client, catalog.catalog, chosen, options)
  }
  // Histories hold what the worker's codec wrote: large payloads by reference, read back here.
  const payloads = payloadSettingsFrom(config)
  const dataConverter = payloads ? { payloadCodecs: [new ClaimCheckCodec(new PayloadStore(payloads))] } : undefined

  // The replayer's own logs (a failed activation, per run) repeat what this command prints.
  // Installed only now: the SDK's native runtime keeps the process alive until a replay ends.
  Runtime.install({ logger: new DefaultLogger('ERROR', () => {}), telemetryOptions: { logging: { forward: {}, filter: { core: 'ERROR', other: 'ERROR' } } } })
  let replayed = 0
  let diverged = 0
  try {
    for await (const { run, divergence } of replayRuns(bundle, runs, dataConverter)) {
      replayed++
      if (divergence === null) continue
      diverged++
      const where = divergence.event === null ? '' : ` at event ${divergence.event.id} (${divergence.event.what})`
      const what = divergence.kind === 'nondeterminism' ? 'diverges' : 'fails to replay'
      out(`✗ ${run.workflowType} ${run.workflowId} run ${run.runId} ${what}${where}:\n  ${divergence.message.replaceAll('\n', '\n  ')}`)
    }
  } finally {
    await connection?.close()
  }
  const source = options.historyFiles.length > 0 ? `${options.historyFiles.length} history file(s)` : `catalog ${catalog.catalog} (${chosen.map((w) => w.name).join(', ') || 'no workflows'})`
  out(`Replayed ${replayed} run(s) from ${source}: ${diverged === 0 ? 'all replay with this code' : `${diverged} diverged`}.`)
  return diverged === 0 ? 0 : EXIT_DIVERGED
}
