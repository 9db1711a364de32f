/**
 * `@flowport/worker/workflow`: everything workflow code may import. Runs inside Temporal's
 * sandbox, so it depends only on @temporalio/workflow, TypeBox and this package's pure modules.
 */
export { defineWorkflow, isWorkflow } from './define.js'
export { useSteps, useEvaluators, type StepCallers, type EvaluatorCallers } from './steps.js'
export { FatalError, ValidationError } from '../common/errors.js'
export type { Evaluation, StepDefinition, EvaluatorDefinition } from '../common/step.js'
export type {
  ChildOptions, PayloadOf, QueryDeclaration, Queries, ResultOf, RunInfo, SignalDeclaration, Signals,
  UpdateDeclaration, UpdateOptions, Updates, VersioningMode, WorkflowContext, WorkflowDefinition, WorkflowMeta, WorkflowSpec
} from './types.js'
// Deterministic building blocks workflow code commonly needs, so one import line is enough.
export { CancellationScope, condition, deprecatePatch, isCancellation, log, patched, sleep, uuid4, workflowInfo } from '@temporalio/workflow'
