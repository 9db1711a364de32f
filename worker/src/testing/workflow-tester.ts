/**
 * Workflow tests with mocked steps: a workflow runs on a real Temporal environment (environment.ts)
 * through a worker of its own, with the project's workflows loaded and bundled as `flowport worker`
 * would, and chosen steps replaced by functions. Steps not replaced run for real; a replacement is
 * validated against the step's schemas and its errors are retried like the step's own.
 */
import { randomUUID } from 'node:crypto'
import type { Static, TSchema } from '@sinclair/typebox'
import type { WorkflowHandle } from '@temporalio/client'
import type { Duration } from '@temporalio/common'
import type { TestWorkflowEnvironment } from '@temporalio/testing'
import { Worker } from '@temporalio/worker'
import protoRoot from '@temporalio/proto'
import { within } from '@flowport/core/bounded'
import { parseActivityType } from '@flowport/core/steps'
import { assembleTrace, evaluatorTypes, type Trace, type TraceError, type TraceWorkflow } from '@flowport/core/trace'
import { consoleLogger } from '../common/logger.js'
import type { WorkerOptions } from '../runtime/start-worker.js'
import { isEvaluator, isStep, type Evaluation, type EvaluatorDefinition, type StepContext, type StepDefinition } from '../common/step.js'
import { buildActivities } from '../runtime/activities.js'
import { bundleWorkflows } from '../runtime/bundle.js'
import { ERROR_SINK } from '../runtime/error-hooks.js'
import { loadProject } from '../runtime/project.js'
import { TRACE_SINK } from '../trace/keeper.js'
import type { WorkflowDefinition } from '../workflow/types.js'
import { openEnvironment, type EnvironmentOptions } from './environment.js'
import { stepCallLog, type StepCall } from './step-calls.js'

/** Replaces a step or evaluator: same arguments as its `run`, output checked against its schema. */
export type MockStep = (input: any, ctx: StepContext) => unknown

/** A replacement for the step or evaluator `D`, typed by its schemas: what its `run` takes and gives. */
export type MockOf<D> = D extends StepDefinition<infer I, infer O> ? (input: Static<I>, ctx: StepContext) => Static<O> | Promise<Static<O>>
  : D extends EvaluatorDefinition<infer I> ? (input: Static<I>, ctx: StepContext) => Evaluation | Promise<Evaluation>
    : never

/** Replacements for the steps and evaluators of module `M` (`import * as steps from './steps.js'`), by name. */
export type MocksOf<M> = { [K in keyof M as M[K] extends StepDefinition<any, any> | EvaluatorDefinition<any> ? K : never]?: MockOf<M[K]> }

export interface WorkflowTestOptions<M = unknown> {
  /**
   * The steps (and evaluators) module the replacements are for, `import * as steps from
   * './steps.js'` (spread several into one object): with it, `steps` is typed by it (a name it does
   * not export, an input or output of the wrong shape is a type error) and checked against it.
   */
  definitions?: M
  /** Replacements by step (or evaluator) name; they apply in the workflow and in its child workflows. */
  steps?: unknown extends M ? Record<string, MockStep> : MocksOf<M>
  /** Sent in order right after the start (a signal sent before its handler exists waits for it). */
  signals?: Array<{ name: string, payload?: unknown }>
  /** Runs after the start and the signals, before the result is awaited: queries, updates, later signals. */
  during?: (handle: WorkflowHandle) => Promise<void>
  /** The run's execution timeout (default 10m): in workflow time, which the time-skipping server skips. */
  timeout?: Duration
  workflowId?: string
}

/** Where the workflows are found, as for the worker; `logger` gets discovery's and bundling's warnings (default: stderr). */
export type WorkflowTesterOptions = EnvironmentOptions & Pick<WorkerOptions, 'packagesFrom' | 'workflowsDir' | 'logger'>

export interface WorkflowTestResult<O = unknown> {
  workflowId: string
  runId: string
  status: TraceWorkflow['status']
  /** The run's output when it completed, else null. */
  output: O | null
  /** The run's failure (name, message, cause chain) when it did not complete, else null. */
  error: TraceError | null
  /** Every attempt of every step and evaluator, in the order they started. */
  calls: StepCall[]
  /** The run's execution trace, as a worker writes it (docs/traces.md). */
  trace: Trace
}

export interface WorkflowTester {
  /** Whether timers and timeouts are skipped (the time-skipping test server) or take their real time. */
  readonly timeSkipping: boolean
  readonly environment: TestWorkflowEnvironment
  run: <I extends TSchema, O extends TSchema, M = unknown>(workflow: WorkflowDefinition<I, O, any, any, any> | string, input: Static<I>, options?: WorkflowTestOptions<M>) => Promise<WorkflowTestResult<Static<O>>>
  close: () => Promise<void>
}

const DEFAULT_TIMEOUT: Duration = '10m'
const { WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1
const CODE_FAILURES = new Set<number>([
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR
])

/** Loads and bundles the workflows once, and opens the environment; `run` as often as needed, then `close`. */
export async function createWorkflowTester (options: WorkflowTesterOptions = {}): Promise<WorkflowTester> {
  const logger = options.logger ?? consoleLogger
  const project = await loadProject({ catalogId: 'flowport-workflow-test', packagesFrom: options.packagesFrom, workflowsDir: options.workflowsDir, logger })
  const workflowBundle = await bundleWorkflows({ registry: project.registry, manifest: project.manifest, logger, reuse: true })
  const evaluators = evaluatorTypes(project.catalog)
  const componentNames = new Set([...project.registry.shared.keys(), ...project.registry.workflows.flatMap((w) => [...w.own.keys()])])
  const environment = await openEnvironment(options)

  async function run (workflow: WorkflowDefinition<any, any, any, any, any> | string, input: unknown, runOptions: WorkflowTestOptions<any> = {}): Promise<WorkflowTestResult<any>> {
    const name = typeof workflow === 'string' ? workflow : workflow.definition.name
    if (project.manifest.workflows[name] === undefined) {
      throw new Error(`No workflow "${name}" was found; loaded: ${Object.keys(project.manifest.workflows).join(', ')}`)
    }
    const mocks = (runOptions.steps ?? {}) as Record<string, MockStep>
    checkMocks(mocks, runOptions.definitions)
    for (const step of Object.keys(mocks)) {
      if (typeof mocks[step] !== 'function') throw new Error(`The replacement of step "${step}" is not a function`)
      if (!componentNames.has(step)) throw new Error(`No step or evaluator "${step}" to replace; loaded: ${[...componentNames].join(', ')}`)
    }
    const mocked = (activityType: string): MockStep | undefined => mocks[parseActivityType(activityType).step]
    const log = stepCallLog((activityType) => mocked(activityType) !== undefined)
    const { activities } = buildActivities(project.registry, (activityType) => mocked(activityType))
    const taskQueue = `flowport-test-${randomUUID()}`
    const worker = await Worker.create({
      connection: environment.nativeConnection,
      namespace: environment.namespace ?? 'default',
      taskQueue,
      workflowBundle,
      activities,
      interceptors: { activity: [log.interceptor] },
      // The workflow runtime calls these when a run closes and when it fails (a worker's trace keeper and
      // error hooks); here the trace is built below and the outcome is the result's.
      sinks: {
        [TRACE_SINK]: { closing: { fn: () => {}, callDuringReplay: false } },
        [ERROR_SINK]: { failed: { fn: () => {}, callDuringReplay: false } }
      }
    })
    const handle = await worker.runUntil(async () => {
      const started = await environment.client.workflow.start(name, {
        taskQueue,
        workflowId: runOptions.workflowId ?? `${name}-test-${randomUUID()}`,
        args: [input],
        workflowExecutionTimeout: runOptions.timeout ?? DEFAULT_TIMEOUT
      })
      for (const signal of runOptions.signals ?? []) await started.signal(signal.name, signal.payload)
      await runOptions.during?.(started)
      await untilClosed(started, name)
      return started
    })
    const runId = handle.firstExecutionRunId
    const history = await handle.fetchHistory()
    const trace = assembleTrace({
      run: { workflowId: handle.workflowId, runId },
      events: history.events ?? [],
      attempts: log.attempts.get(runId) ?? [],
      isEvaluator: (type) => evaluators.has(type),
      maxValueBytes: Number.MAX_SAFE_INTEGER
    })
    const { status, output, error } = trace.workflow
    return { workflowId: handle.workflowId, runId, status, output: status === 'completed' ? output : null, error, calls: log.calls, trace }
  }

  return { timeSkipping: environment.supportsTimeSkipping, environment, run, close: async () => { await environment.teardown() } }
}

/** With `definitions`, each replaced name must be a step or evaluator of it (what the types say, checked for plain JavaScript too). */
function checkMocks (mocks: Record<string, MockStep>, definitions: unknown): void {
  if (definitions === undefined) return
  const names = new Set(Object.values(definitions as Record<string, unknown>).flatMap((d) => isStep(d) || isEvaluator(d) ? [d.name] : []))
  const unknown = Object.keys(mocks).filter((name) => !names.has(name))
  if (unknown.length > 0) {
    throw new Error(`No step or evaluator ${unknown.map((n) => `"${n}"`).join(', ')} in the definitions given to replace; they have: ${[...names].join(', ') || 'none'}`)
  }
}

/** How often a test's run is checked for a failing workflow task while it runs. */
const TASK_CHECK_MS = 250

/**
 * Waits for the run to close (its outcome is read from the history). A workflow task that fails
 * (a bug in workflow code, a nondeterminism error, a sandbox import error) is retried by the engine
 * until the run's timeout, so the test would wait that long and then report a timeout: the first
 * failed task ends the run instead, and the test gets the worker's error with its stack.
 */
async function untilClosed (handle: WorkflowHandle, name: string): Promise<void> {
  const closed = handle.result().then(() => true, () => true)
  for (;;) {
    const failure = await taskFailure(handle)
    if (failure !== null) {
      await handle.terminate('workflow test: the workflow task failed').catch(() => {})
      throw new Error(`The workflow task of ${name} (run ${handle.workflowId}) failed, and the engine would retry it until the run times out: ` +
        `${failure.message ?? ''}${failure.stackTrace ? `\n${failure.stackTrace}` : ''}`)
    }
    if (await within(closed, TASK_CHECK_MS, false)) return
  }
}

async function taskFailure (handle: WorkflowHandle): Promise<{ message?: string | null, stackTrace?: string | null } | null> {
  const history = await handle.fetchHistory().catch(() => null)
  for (const event of history?.events ?? []) {
    const failed = event.workflowTaskFailedEventAttributes
    // Only failures of the code: a signal that arrived during the task (UNHANDLED_COMMAND) or a
    // reset's marker is the engine's bookkeeping, and the next task goes on.
    if (failed?.failure && CODE_FAILURES.has(failed.cause ?? 0)) return failed.failure
  }
  return null
}

/** One workflow test: `createWorkflowTester`, one `run`, `close`. */
export async function runWorkflowTest<I extends TSchema, O extends TSchema, M = unknown> (
  workflow: WorkflowDefinition<I, O, any, any, any> | string, input: Static<I>, options: WorkflowTestOptions<M> & WorkflowTesterOptions = {}
): Promise<WorkflowTestResult<Static<O>>> {
  const tester = await createWorkflowTester(options)
  try {
    return await tester.run(workflow, input, options)
  } finally {
    await tester.close()
  }
}
