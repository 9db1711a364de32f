/**
 * `@flowport/worker`: the Node side. Steps and evaluators are defined here (they run in Node, as
 * Temporal activities); workflows are defined with `@flowport/worker/workflow`.
 */
export { defineStep, defineEvaluator, EvaluationSchema, isStep, isEvaluator } from './common/step.js'
export type { DirectCallContext, Evaluation, EvaluatorDefinition, EvaluatorSpec, StepContext, StepDefinition, StepSpec } from './common/step.js'
export { defineEval, isEval, type EvalDefinition, type EvalEntry, type EvalEvaluatorInput, type EvalInputOf, type EvalSpec } from './common/eval.js'
export { DEFAULT_STEP_OPTIONS, type RetryOptions, type StepOptions } from './common/step-options.js'
export { FatalError, ValidationError } from './common/errors.js'
export { credentials, CredentialsError, MissingCredentialError, resolveCredentialSettings } from '@flowport/core/credentials'
export { startWorker, type WorkerHandle, type WorkerOptions } from './runtime/start-worker.js'
export { buildWorkflowBundle, type BuildBundleOptions } from './runtime/build-bundle.js'
export { EngineOptionsSchema, resolveEngineOptions, type EngineOptions } from './runtime/engine.js'
export { DefinitionError } from './runtime/definition-error.js'
export { consoleLogger, type Logger } from './common/logger.js'
export type { ErrorEvent, ErrorHook, ErrorHookContext, ErrorInfo, RuntimeErrorEvent, StepErrorEvent, WorkflowErrorEvent } from './common/error-hook.js'
export type { WorkflowDefinition } from './workflow/types.js'
export type { Catalog, CatalogWorkflow } from '@flowport/core/contract'
export { replayRuns, type RecordedRun, type ReplayOutcome } from './runtime/replay.js'
export { defaultBuildId } from './runtime/deployment-version.js'
