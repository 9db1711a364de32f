/**
 * The worker process's settings, read from the environment: one TypeBox schema, checked at start.
 * A bad value stops the process with a message naming the variable.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { WorkerOptions } from './runtime/start-worker.js'
import { EngineOptionsSchema, type EngineOptions } from './runtime/engine.js'
import { CatalogIdSetting, EngineEnvProperties, LogLevelSetting, NodeEnvSetting, OptionalString, isProduction, loadSettings } from '@flowport/core/settings'
import { createLogger, type Logger } from './common/logger.js'
import { tlsFromSettings } from '@flowport/core/tls'
import { TraceEnvProperties, traceEnvProblem, traceSettingsFrom } from '@flowport/core/trace-settings'
import { OtelEnvProperties } from '@flowport/core/tracing'
import { PayloadEnvProperties, payloadSettingsFrom } from '@flowport/core/payloads'

const Count = (def: number, minimum: number) => Type.Integer({ minimum, default: def })

/** `maxCachedWorkflows` → `MAX_CACHED_WORKFLOWS`. */
type Snake<S extends string> = S extends `${infer C}${infer Rest}` ? `${C extends Lowercase<C> ? Uppercase<C> : `_${C}`}${Snake<Rest>}` : ''
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()
type EngineEnv = { [O in keyof EngineOptions as `ENGINE_${Snake<O>}`]: typeof EngineOptionsSchema.properties[O] }
/** Each engine option as the variable `ENGINE_<OPTION>`, with the option's type and default (EngineOptionsSchema). */
const EngineVariables = Object.fromEntries(Object.entries(EngineOptionsSchema.properties).map(([option, schema]) => [`ENGINE_${snake(option)}`, schema])) as EngineEnv

export const WorkerEnvSchema = Type.Object({
  NODE_ENV: NodeEnvSetting,
  LOG_LEVEL: LogLevelSetting,
  ...EngineEnvProperties,
  SERVICE_CATALOG_ID: CatalogIdSetting,
  SERVICE_WORKFLOWS_DIR: OptionalString,
  WORKFLOW_BUNDLE: OptionalString,
  ...EngineVariables,
  ENGINE_SHUTDOWN_GRACE_MS: Count(10_000, 0),
  /** How long the engine may stay out of reach (at start or later) before the worker exits 1. */
  SERVICE_WORKER_ENGINE_RETRY_MS: Count(120_000, 0),
  /** Port of the worker's /health and /ready probes; unset: no probe server. */
  SERVICE_WORKER_HEALTH_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  /** Port of the worker's Prometheus metrics (/metrics: the SDK's worker metrics and per-step metrics); unset: none. */
  SERVICE_WORKER_METRICS_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  /** How long a package's onError hook may run before it is logged and no longer waited for (worker/README.md, "Error hooks"). */
  SERVICE_WORKER_ERROR_HOOK_TIMEOUT_MS: Count(10_000, 1),
  /** Run under Temporal's worker deployment versioning (docs/versioning.md); off: an unversioned worker. */
  SERVICE_WORKER_VERSIONING: Type.Boolean({ default: false }),
  /** The worker deployment's name; default: the catalog id. */
  SERVICE_WORKER_DEPLOYMENT_NAME: OptionalString,
  /** This worker's build id; default: derived from the workflow bundle's content, so identical code gives the same id. */
  SERVICE_WORKER_BUILD_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  ...TraceEnvProperties,
  // Large payloads by reference, in the trace bucket (core/src/payloads/settings.ts).
  ...PayloadEnvProperties,
  // OpenTelemetry traces (core/src/tracing.ts): the standard variables, off while no endpoint is set.
  ...OtelEnvProperties
})

export type WorkerEnv = Static<typeof WorkerEnvSchema>

export class WorkerConfigError extends Error {
  override name = 'WorkerConfigError'
}

export function readWorkerEnv (env: Record<string, string | undefined> = process.env): WorkerEnv {
  const result = loadSettings(WorkerEnvSchema, env, (message) => new WorkerConfigError(message))
  for (const kind of ['ACTIVITY', 'WORKFLOW'] as const) {
    const polls = `ENGINE_MAX_CONCURRENT_${kind}_TASK_POLLS` as const
    const executions = `ENGINE_MAX_CONCURRENT_${kind}_TASK_EXECUTIONS` as const
    if (result[polls] > result[executions]) throw new WorkerConfigError(`Invalid setting ${polls}=${result[polls]}: must not exceed ${executions} (${result[executions]})`)
  }
  const traceProblem = traceEnvProblem(result)
  if (traceProblem !== null) throw new WorkerConfigError(traceProblem)
  return result
}

/** The worker's logger under NODE_ENV and LOG_LEVEL (common/logger.ts). */
export function workerLogger (config: Pick<WorkerEnv, 'NODE_ENV' | 'LOG_LEVEL'>): Logger {
  return createLogger({ level: config.LOG_LEVEL, json: isProduction(config.NODE_ENV) })
}

/** startWorker options from the settings (TLS when asked for, or implied by an API key or a client certificate). */
export function workerOptionsFromEnv (config: WorkerEnv): WorkerOptions {
  return {
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    catalogId: config.SERVICE_CATALOG_ID,
    workflowsDir: config.SERVICE_WORKFLOWS_DIR,
    workflowBundlePath: config.WORKFLOW_BUNDLE,
    apiKey: config.TEMPORAL_API_KEY,
    tls: tlsFromSettings(config),
    shutdownGraceTime: config.ENGINE_SHUTDOWN_GRACE_MS,
    trace: traceSettingsFrom(config),
    payloads: payloadSettingsFrom(config),
    metrics: config.SERVICE_WORKER_METRICS_PORT !== undefined,
    errorHookTimeoutMs: config.SERVICE_WORKER_ERROR_HOOK_TIMEOUT_MS,
    versioning: config.SERVICE_WORKER_VERSIONING
      ? { deploymentName: config.SERVICE_WORKER_DEPLOYMENT_NAME, buildId: config.SERVICE_WORKER_BUILD_ID }
      : null,
    engine: Object.fromEntries(Object.keys(EngineOptionsSchema.properties).map((option) => [option, config[`ENGINE_${snake(option)}` as keyof EngineEnv]]))
  }
}
