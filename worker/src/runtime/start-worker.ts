/**
 * `startWorker`: load workflows, bundle them once, poll the catalog's task queue and publish the
 * catalog. Resolves once the worker runs and the catalog is published.
 */
import { Client } from '@temporalio/client'
import type { Duration, WorkerDeploymentVersion } from '@temporalio/common'
import { NativeConnection, Runtime, Worker, type ActivityInterceptorsFactory, type NativeConnectionOptions, type WorkerOptions as SdkWorkerOptions } from '@temporalio/worker'
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker/index.js'
import { WEBHOOK_DELIVER_ACTIVITY, webhookDeliveryQueue, type Catalog } from '@flowport/core/contract'
import { bundleWorkflows } from './bundle.js'
import { resolveEngineOptions, type EngineOptions } from './engine.js'
import { consoleLogger, type Logger } from '../common/logger.js'
import { stepLogs } from './step-logs.js'
import { loadProject, type Project, type ProjectOptions } from './project.js'
import { entryHash, readPrebuiltBundle } from './prebuilt-bundle.js'
import { publishCatalog } from './publish.js'
import { buildCatalog } from './catalog.js'
import { deploymentVersion } from './deployment-version.js'
import { stepMetrics } from './step-metrics.js'
import type { Tracing } from '@flowport/core/tracing'
import { evaluatorTypes, type TraceSettings, TraceStore } from '@flowport/core/trace'
import { TRACE_SINK, TraceKeeper } from '../trace/keeper.js'
import { ErrorHooks } from './error-hooks.js'
import { errorInfo } from '../common/error-hook.js'
import { webhookActivities } from '../webhook/activities.js'
import { evalActivities } from './evals/activities.js'
import { attemptRecorder } from '../trace/recorder.js'
import { TraceWriteQueue, writeQueueMetrics } from '../trace/write-queue.js'
import { ClaimCheckCodec, type PayloadSettings, PayloadStore } from '@flowport/core/payloads'
import { within } from '@flowport/core/bounded'

/** How long a graceful shutdown waits for queued failed-attempt records (docs/traces.md). */
const SHUTDOWN_FLUSH_MS = 5000

export interface WorkerOptions extends Omit<ProjectOptions, 'logger'> {
  /** Temporal frontend, e.g. `localhost:7233`. */
  address: string
  namespace: string
  /** Concurrency; see EngineOptionsSchema for the defaults. */
  engine?: Partial<EngineOptions>
  tls?: NativeConnectionOptions['tls']
  apiKey?: string
  logger?: Logger
  /** How long running steps may finish after shutdown starts before they are cancelled. Default 10s. */
  shutdownGraceTime?: Duration
  /** Reuse a bundle built earlier in this process for the same workflow files (tests). */
  reuseBundle?: boolean
  /** A bundle prebuilt by `prebundle` (WORKFLOW_BUNDLE); used only if it matches the loaded workflows. */
  workflowBundlePath?: string
  /** The worker's name in the engine's history (default: the SDK's `<pid>@<host>`). */
  identity?: string
  /** Where execution traces go; absent: no traces (the `flowport worker` entry traces by default). */
  trace?: TraceSettings | null
  /** Large payloads by reference (core/src/payloads/codec.ts); absent or null: payloads travel inline, as the engine's size limit allows. */
  payloads?: PayloadSettings | null
  /** OpenTelemetry tracing (core/src/tracing.ts): workflow and step spans, children of the starter's span. */
  tracing?: Tracing | null
  /** Record Flowport's metrics (per step, trace writes) through the runtime's meter (set when a metrics port is installed: telemetry.ts). */
  metrics?: boolean
  /** How long a package's `onError` hook may run before it is logged and no longer waited for, in ms (default 10000). */
  errorHookTimeoutMs?: number
  /** Worker deployment versioning (deployment-version.ts); absent or null: an unversioned worker. */
  versioning?: { deploymentName?: string, buildId?: string } | null
}

export interface WorkerHandle {
  /** Stops polling, lets running tasks finish (within the grace time) and closes the connection. */
  shutdown: () => Promise<void>
  /** Settles when the worker has stopped; rejects if it stopped on an error. */
  done: Promise<void>
  /** The catalog published for this catalog id (an identical one published earlier is kept as is). */
  catalog: Catalog
  /** Whether both pollers run and the engine answers its health check now. */
  isPolling: () => Promise<boolean>
  /** The worker deployment version this worker polls as; null when it is unversioned. */
  version: WorkerDeploymentVersion | null
}

/** What `startWorker` needs before it connects: loaded workflows and their bundle. */
export interface PreparedWorker {
  project: Project
  workflowBundle: { code: string }
  engine: EngineOptions
}

/** Loads and bundles the workflows; fails on a definition error, before any engine is needed. */
export async function prepareWorker (options: WorkerOptions): Promise<PreparedWorker> {
  const logger = options.logger ?? consoleLogger
  const engine = resolveEngineOptions(options.engine)
  const project = await loadProject({ ...options, logger })
  const workflowBundle = await workflowBundleFor(project, options, logger)
  return { project, workflowBundle, engine }
}

export async function startWorker (options: WorkerOptions): Promise<WorkerHandle> {
  return await startPreparedWorker(await prepareWorker(options), options)
}

/** Connects, polls and publishes the catalog; every failure here is one of the engine's. */
export async function startPreparedWorker (prepared: PreparedWorker, options: WorkerOptions): Promise<WorkerHandle> {
  const logger = options.logger ?? consoleLogger
  const engine = await connectEngine(options)
  const { project } = prepared
  const owners = new Map(project.registry.workflows.map((w) => [w.meta.name, w.origin.package]))
  const hooks = new ErrorHooks(project.errorHooks, logger, options.errorHookTimeoutMs, (name) => owners.get(name))
  // The trace's failures (a write that failed, records dropped) are the worker's own: runtime errors for the hooks.
  const traces = await openTraces(project, options, engine.client, hooks.size === 0 ? logger : hooks.reporting(logger), logger)
  const version = deploymentVersion(options, prepared.workflowBundle)
  let workers: Workers
  try {
    workers = await createWorkers(prepared, options, { engine, traces, hooks, version, logger })
  } catch (err) {
    traces.store?.close()
    await engine.close()
    throw err
  }
  const { running, done, shutdown } = runWorkers(workers, options, { engine, traces, hooks })
  const catalog = await publishOnceRunning(project, options, engine.client, version, running, logger).catch(async (err: unknown) => {
    await shutdown().catch(() => {})
    throw err
  })
  return { shutdown, done, catalog, isPolling: () => isPolling(workers, engine.connection), version }
}

/** The engine connection and a client on it; payloads above the threshold go through the claim check. */
export async function connectEngine (options: Pick<WorkerOptions, 'address' | 'namespace' | 'tls' | 'apiKey' | 'payloads'>) {
  const connection = await NativeConnection.connect({ address: options.address, tls: options.tls, apiKey: options.apiKey })
  // The claim check: workflow and step payloads above the threshold, and what this worker's client
  // reads and sends (webhook bodies, trace sweeps), go through the same codec as the API's.
  const payloadStore = options.payloads ? new PayloadStore(options.payloads) : null
  const dataConverter = payloadStore === null ? undefined : { payloadCodecs: [new ClaimCheckCodec(payloadStore)] }
  const client = new Client({ connection, namespace: options.namespace, dataConverter })
  const close = async (): Promise<void> => {
    payloadStore?.close()
    await connection.close()
  }
  return { connection, client, dataConverter, close }
}
export type Engine = Awaited<ReturnType<typeof connectEngine>>

/** The trace store, the queue of failed-attempt records and the keeper of closing runs; all null without traces. */
async function openTraces (project: Project, options: WorkerOptions, client: Client, traceLogger: Logger, logger: Logger) {
  const store = options.trace ? new TraceStore(options.trace) : null
  if (store === null) return { store, attemptWrites: null, keeper: null }
  const traceDirProblem = await store.checkLocalDir()
  if (traceDirProblem) logger.warn(traceDirProblem)
  const attemptWrites = new TraceWriteQueue({ limit: store.settings.writeQueueMax, logger: traceLogger, metrics: options.metrics === true ? writeQueueMetrics(Runtime.instance().metricMeter) : null })
  const evaluators = evaluatorTypes(project.catalog)
  const keeper = new TraceKeeper({ client, taskQueue: options.catalogId, store, attemptWrites, isEvaluator: (type) => evaluators.has(type), logger: traceLogger })
  return { store, attemptWrites, keeper }
}
type Traces = Awaited<ReturnType<typeof openTraces>>

export interface Workers { steps: Worker, deliveries: Worker }

/** The catalog's Worker: its workflows, steps, webhook delivery workflows and evals, with every interceptor and sink the options ask for. */
async function createWorkers ({ project, workflowBundle, engine: engineOptions }: PreparedWorker, options: WorkerOptions,
  { engine, traces, hooks, version, logger }: { engine: Engine, traces: Traces, hooks: ErrorHooks, version: WorkerDeploymentVersion | null, logger: Logger }): Promise<Workers> {
  const tracing = options.tracing ?? null
  const { store, attemptWrites, keeper } = traces
  const activityInterceptors = [
    ...(tracing === null ? [] : [tracingInterceptors]),
    stepLogs(logger),
    ...(options.metrics === true ? [stepMetrics()] : []),
    ...(store === null || attemptWrites === null ? [] : [attemptRecorder(store, attemptWrites)]),
    ...(hooks.size === 0 ? [] : [hooks.stepInterceptor()])
  ]
  const webhooks = webhookActivities({ client: engine.client, store, maxPerReceiver: engineOptions.maxWebhookDeliveriesPerReceiver })
  return await createWorkerPair(engine, options, engineOptions, activityInterceptors, webhooks[WEBHOOK_DELIVER_ACTIVITY], {
    taskQueue: options.catalogId,
    workflowBundle,
    // The delivery workflows of this catalog's webhooks run here (the POSTs of those started before
    // the delivery queue too), and its evals.
    activities: { ...project.activities, ...webhooks, ...evalActivities({ client: engine.client, registry: project.registry }) },
    ...(version === null ? {} : { workerDeploymentOptions: { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' } }),
    sinks: {
      // Registered with tracing off too: every run calls it, and an unregistered sink is an error log per run.
      [TRACE_SINK]: { closing: { fn: (info) => { keeper?.closing(info.workflowId, info.runId) }, callDuringReplay: false } },
      // Registered without hooks too, for the same reason; a failed run leaves the sandbox through it.
      ...hooks.sink((type) => project.manifest.workflows[type] ?? type),
      // Spans made inside the workflow sandbox leave through this sink.
      ...(tracing === null ? {} : { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) })
    }
  })
}

/**
 * Two Workers on one connection: one on `first.taskQueue` (workflows and the other activities),
 * and one POSTing the completion webhooks from that queue's delivery queue (worker/src/workflow/webhook.ts),
 * with slots of its own; unversioned, as the POST is Flowport's code, not the catalog's.
 */
export async function createWorkerPair (engine: Engine, options: Pick<WorkerOptions, 'namespace' | 'shutdownGraceTime' | 'identity'>, engineOptions: EngineOptions,
  activityInterceptors: ActivityInterceptorsFactory[], deliver: unknown, first: Omit<SdkWorkerOptions, 'connection' | 'namespace'>): Promise<Workers> {
  const { maxConcurrentWebhookDeliveries, maxWebhookDeliveriesPerReceiver, ...workerEngine } = engineOptions
  const common = {
    connection: engine.connection,
    namespace: options.namespace,
    dataConverter: engine.dataConverter,
    shutdownGraceTime: options.shutdownGraceTime ?? '10s',
    interceptors: { activity: activityInterceptors },
    ...(options.identity === undefined ? {} : { identity: options.identity })
  }
  const steps = await Worker.create({ ...common, ...workerEngine, ...first })
  try {
    const deliveries = await Worker.create({
      ...common,
      taskQueue: webhookDeliveryQueue(first.taskQueue),
      activities: { [WEBHOOK_DELIVER_ACTIVITY]: deliver },
      maxConcurrentActivityTaskExecutions: maxConcurrentWebhookDeliveries,
      maxConcurrentActivityTaskPolls: Math.min(engineOptions.maxConcurrentActivityTaskPolls, maxConcurrentWebhookDeliveries)
    })
    return { steps, deliveries }
  } catch (err) {
    // A worker made but never run holds the connection: run and stop it, so that it can close.
    const ran = steps.run()
    steps.shutdown()
    await ran.catch(() => {})
    throw err
  }
}

/** Runs both Workers: either stops, so does the other; `done` settles once `close` has run after both. */
export function runWorkerPair ({ steps, deliveries }: Workers, close: () => Promise<void>) {
  const stopBoth = () => { for (const w of [steps, deliveries]) if (w.getState() === 'RUNNING') w.shutdown() }
  const running = Promise.all([steps.run().finally(stopBoth), deliveries.run().finally(stopBoth)]).then(() => {})
  const done = running.finally(close)
  const shutdown = async (): Promise<void> => {
    stopBoth()
    await done
  }
  return { running, done, shutdown }
}

function runWorkers (workers: Workers, options: WorkerOptions, { engine, traces, hooks }: { engine: Engine, traces: Traces, hooks: ErrorHooks }) {
  const run = runWorkerPair(workers, async () => {
    await hooks.drain()
    // Steps have ended: the records of their last failures are written before the store closes.
    await traces.attemptWrites?.close(SHUTDOWN_FLUSH_MS)
    await traces.keeper?.stop()
    traces.store?.close()
    await engine.close()
  })
  traces.keeper?.startSweeping()
  // A worker that stops on an error (e.g. its pollers met an engine error) is a runtime error.
  run.running.catch((err: unknown) => { hooks.emit({ source: 'runtime', message: `The worker of catalog ${options.catalogId} stopped on an error`, workflowId: null, runId: null, error: errorInfo(err) }) })
  return run
}

/**
 * Publishes the catalog. The update that replaces a catalog is handled by this very worker, so it
 * must already run; if it stops meanwhile, this gives up instead of waiting forever.
 */
async function publishOnceRunning (project: Project, options: WorkerOptions, client: Client, version: WorkerDeploymentVersion | null, running: Promise<void>, logger: Logger): Promise<Catalog> {
  const stopped = running.then(() => { throw new Error('Worker stopped before the catalog was published') })
  stopped.catch(() => {}) // only raced below; a later stop is reported through `done`
  // A versioned worker's catalog names its version, so the API can show the current version's entries.
  const own = version === null ? { catalog: project.catalog, hash: project.hash } : buildCatalog(options.catalogId, project.registry, version)
  const publication = await Promise.race([publishCatalog(client, options.catalogId, own.catalog, own.hash), stopped])
  // A versioned worker's catalog is kept beside the other versions' ("current" would read as the deployment's current version).
  const outcome = version === null ? publication.outcome : `of build ${version.buildId} ${publication.outcome === 'current' ? 'already published' : 'published'}`
  logger.info(`Worker polling catalog ${options.catalogId}; catalog ${outcome}`, {
    workflows: project.catalog.workflows.map((w) => w.name),
    hash: own.hash,
    ...(version === null ? {} : { deploymentName: version.deploymentName, buildId: version.buildId })
  })
  return publication.catalog
}

/** Whether both Workers' pollers run and the engine answers its health check now. */
export async function isPolling ({ steps, deliveries }: Workers, connection: NativeConnection): Promise<boolean> {
  const status = steps.getStatus()
  if (status.runState !== 'RUNNING' || status.workflowPollerState !== 'POLLING' || status.activityPollerState !== 'POLLING') return false
  const delivering = deliveries.getStatus()
  if (delivering.runState !== 'RUNNING' || delivering.activityPollerState !== 'POLLING') return false
  // The pollers keep their state while the engine is away (they retry); ask the engine itself.
  // The connection retries an unanswered call past its deadline, hence the timer of our own.
  const check = connection.withDeadline(Date.now() + 1000, () => connection.healthService.check({}))
    .then((health) => health.status === 1, () => false) // 1 = SERVING
  return await within(check, 1000, false)
}

/** A step's span (`RunActivity:<workflow>#<step>`), a child of the workflow's `StartActivity` span. */
const tracingInterceptors: ActivityInterceptorsFactory = (ctx) => ({
  inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
  outbound: new OpenTelemetryActivityOutboundInterceptor(ctx)
})

async function workflowBundleFor (project: Project, options: WorkerOptions, logger: Logger): Promise<{ code: string }> {
  const tracing = options.tracing != null
  if (options.workflowBundlePath !== undefined) {
    const prebuilt = readPrebuiltBundle(options.workflowBundlePath, entryHash(project.registry, project.manifest, { tracing }))
    if ('code' in prebuilt) return prebuilt
    logger.warn(`Not using the prebuilt workflow bundle: ${prebuilt.reason}; bundling now`)
  }
  return await bundleWorkflows({ registry: project.registry, manifest: project.manifest, logger, reuse: options.reuseBundle, tracing })
}
