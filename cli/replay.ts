/**
 * `flowport replay`: the check before a deploy. Takes the recent histories of the catalog's
 * workflows from the engine (open runs, and runs closed within the window), or history files in
 * Temporal's JSON format, and replays them against the local workflow code; a run the code no
 * longer reproduces is printed with its version and first diverging event, and the command exits 1,
 * so CI can gate the deploy (docs/versioning.md). From the engine it replays only
 * the runs the new code will run: runs pinned to another version are counted, not replayed, unless
 * `--all` (docs/deploys.md, "Which runs replay checks").
 */
import { Client, type Connection } from '@temporalio/client'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import { buildWorkflowBundle, defaultBuildId, DefinitionError, replayRuns } from '@flowport/worker'
import { readWorkerEnv, workerLogger, WorkerConfigError, type WorkerEnv } from '@flowport/worker/env'
import { ClaimCheckCodec, payloadSettingsFrom, PayloadStore } from '@flowport/core/payloads'
import { durationMs } from '@flowport/core/duration'
import type { WorkerDeploymentVersion } from '../schemas/deployment-version.js'
import { versionValue } from '../plugins/app/engine/deployment-version.js'
import { describeVersion, fromEngine, fromFile, pinnedElsewhere, type VersionedRun } from './replay-sources.js'
import { connectEngine, EngineUnreachableError } from './engine.js'

export interface ReplayOptions {
  /** Closed runs count when they closed within this many ms (open runs always count). */
  sinceMs: number
  /** Runs replayed per workflow, in the engine's order (open runs, then the most recently closed). */
  limit: number
  /** Only these workflows (names or aliases of the catalog); empty: all. */
  workflows: string[]
  /** History files to replay instead of asking the engine. */
  historyFiles: string[]
  /** Replay runs pinned to other versions too. */
  all: boolean
}

/** Exit codes (docs/versioning.md): 0 every run replays, then these. */
export const EXIT_DIVERGED = 1
export const EXIT_USAGE = 2
export const EXIT_ENGINE = 3

/** `--since`: a duration as the API writes them (`30m`, `24h`, `7d`); null when it is not one. */
export function windowMs (value: string): number | null {
  if (!/^\d+(ms|s|m|h|d)$/.test(value)) return null
  return durationMs(value)
}

type Print = (line: string) => void

/** `- skipped: 3 run(s) pinned to main:4f0c2a9e1b7d`, one line per version. */
function skippedLines (skipped: Map<string, number>): string[] {
  return [...skipped].map(([version, n]) => `- skipped: ${n} run(s) pinned to ${version}, which this code never runs`)
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
  // Before the bundle is built (seconds): an engine that is not there is the first thing to tell.
  let connection: Connection | undefined
  try {
    connection = options.historyFiles.length > 0 ? undefined : await connectEngine(config)
  } catch (e) {
    if (!(e instanceof EngineUnreachableError)) throw e
    err(e.message)
    return EXIT_ENGINE
  }
  try {
    return await replayWith(connection, config, options, out, err)
  } finally {
    await connection?.close()
  }
}

async function replayWith (connection: Connection | undefined, config: WorkerEnv, options: ReplayOptions, out: Print, err: Print): Promise<number> {
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
  // The version the new code will poll as (worker/src/runtime/deployment-version.ts), read with
  // versioning on or off: off, no pinned run meets the code, but one pinned to this very version
  // would once it is on, so it is replayed.
  const newCode: WorkerDeploymentVersion = {
    deploymentName: config.SERVICE_WORKER_DEPLOYMENT_NAME ?? config.SERVICE_CATALOG_ID,
    buildId: config.SERVICE_WORKER_BUILD_ID ?? defaultBuildId(bundle.code)
  }

  const known = catalog.workflows.map((w) => ({ name: w.name, types: [w.name, ...w.aliases] }))
  const unknown = options.workflows.filter((name) => !known.some((w) => w.types.includes(name)))
  if (unknown.length > 0) {
    err(`Not in catalog ${catalog.catalog}: ${unknown.join(', ')} (its workflows: ${known.map((w) => w.name).join(', ') || 'none'})`)
    return EXIT_USAGE
  }
  const chosen = options.workflows.length === 0 ? known : known.filter((w) => w.types.some((t) => options.workflows.includes(t)))

  const skipped = new Map<string, number>()
  let runs: AsyncIterable<VersionedRun> | VersionedRun[]
  if (connection === undefined) {
    try {
      runs = options.historyFiles.map(fromFile)
    } catch (e) {
      err((e as Error).message)
      return EXIT_USAGE
    }
  } else {
    runs = fromEngine(new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }), {
      catalogId: catalog.catalog,
      workflows: chosen,
      since: new Date(Date.now() - options.sinceMs),
      limit: options.limit,
      skip: (run) => (options.all ? null : pinnedElsewhere(run, newCode)),
      skipped: (version) => { skipped.set(versionValue(version), (skipped.get(versionValue(version)) ?? 0) + 1) }
    })
  }
  // Histories hold what the worker's codec wrote: large payloads by reference, read back here.
  const payloads = payloadSettingsFrom(config)
  const dataConverter = payloads ? { payloadCodecs: [new ClaimCheckCodec(new PayloadStore(payloads))] } : undefined

  // The replayer's own logs (a failed activation, per run) repeat what this command prints.
  // Installed only now: the SDK's native runtime keeps the process alive until a replay ends.
  Runtime.install({ logger: new DefaultLogger('ERROR', () => {}), telemetryOptions: { logging: { forward: {}, filter: { core: 'ERROR', other: 'ERROR' } } } })
  let replayed = 0
  let diverged = 0
  for await (const { run, divergence } of replayRuns(bundle, runs, dataConverter)) {
    replayed++
    if (divergence === null) continue
    diverged++
    const where = divergence.event === null ? '' : ` at event ${divergence.event.id} (${divergence.event.what})`
    const what = divergence.kind === 'nondeterminism' ? 'diverges' : 'fails to replay'
    out(`✗ ${run.workflowType} ${run.workflowId} run ${run.runId} ${describeVersion(run.versioning)} ${what}${where}:\n  ${divergence.message.replaceAll('\n', '\n  ')}`)
  }
  for (const line of skippedLines(skipped)) out(line)
  const outcome = diverged === 0 ? 'all replay with this code' : `${diverged} diverged`
  if (connection === undefined) {
    out(`Replayed ${replayed} run(s) from ${options.historyFiles.length} history file(s): ${outcome}.`)
  } else {
    const source = `catalog ${catalog.catalog} (${chosen.map((w) => w.name).join(', ') || 'no workflows'})`
    const count = [...skipped.values()].reduce((a, b) => a + b, 0)
    const left = options.all
      ? ' Runs pinned to other versions included (--all).'
      : ` Skipped ${count} run(s) pinned to versions other than this code's (${versionValue(newCode)})${count > 0 ? ': flowport replay --all replays them too' : ''}.`
    out(`Replayed ${replayed} run(s) from ${source}: ${outcome}.${left}`)
  }
  return diverged === 0 ? 0 : EXIT_DIVERGED
}
