/**
 * Runs a definition as a Temporal workflow. The generated bundle entry wraps every registered
 * workflow with `workflowEntry`, so definitions stay plain data and user source is never rewritten.
 */
import { CancellationScope, ContinueAsNew, isCancellation, proxySinks, workflowInfo, type Sinks } from '@temporalio/workflow'
import type { WorkflowDefinitionOptions } from '@temporalio/common'
import type { VersioningMode } from '@flowport/core/contract'
import { errorInfo, type ErrorInfo } from '../common/error-hook.js'
import { explain } from '../common/validate.js'
import { createContext } from './context.js'
import { validationFailure } from '../common/failure.js'
import { toFailure } from './failures.js'
import { installManifest, type Manifest } from './manifest.js'
import type { WorkflowDefinition } from './types.js'

export { installManifest, type Manifest }

/** The worker's trace keeper (worker/src/trace/keeper.ts, TRACE_SINK) and error hooks (worker/src/runtime/error-hooks.ts, ERROR_SINK). */
export interface FlowportSinks extends Sinks {
  flowportTrace: { closing: () => void }
  flowportErrors: { failed: (error: ErrorInfo) => void }
}
const { flowportTrace, flowportErrors } = proxySinks<FlowportSinks>()

/** A run that ends by this error failed (a stop ends it canceled, continue-as-new starts the next run). */
function reportFailure (err: unknown): void {
  if (err instanceof ContinueAsNew || isCancellation(err) || !(err instanceof Error)) return
  // Sinks are called by the worker after the workflow task, never on replay: no effect on the run.
  flowportErrors.failed(errorInfo(err))
}

/**
 * A workflow's versioning behaviour (docs/versioning.md), for the generated
 * entry's `setWorkflowOptions`. Given only on a versioned worker: the engine refuses a workflow
 * task completed with a behaviour by an unversioned worker, and one bundle serves both (the
 * setting is the worker's, not the bundle's). The SDK asks once, before the run's code starts.
 */
export function versioningOptions (mode: VersioningMode): () => WorkflowDefinitionOptions {
  const versioningBehavior = mode === 'autoUpgrade' ? 'AUTO_UPGRADE' : 'PINNED'
  // An unversioned worker still reports a version for the task: its build id, with no deployment name.
  return () => ((workflowInfo().currentDeploymentVersion?.deploymentName ?? '') === '' ? {} : { versioningBehavior })
}

export function workflowEntry (definition: WorkflowDefinition, manifest: Manifest): (input: unknown) => Promise<unknown> {
  const meta = definition.definition
  return async function (input: unknown): Promise<unknown> {
    installManifest(manifest)
    try {
      return await run(input)
    } catch (err) {
      reportFailure(err)
      throw err
    } finally {
      // Not on replay (the sink is registered that way): the keeper writes the trace once the run has closed.
      flowportTrace.closing()
    }
  }

  async function run (input: unknown): Promise<unknown> {
    const problem = explain(meta.inputSchema, input)
    if (problem !== undefined) throw validationFailure(`Invalid input of workflow ${meta.name}: ${problem}`)

    const ctx = createContext(meta, input)
    let output: unknown
    try {
      output = await meta.run(input, ctx)
    } catch (err) {
      // Only a cancellation of the run itself (a stop request) triggers cleanup, not a scope the
      // workflow cancelled on its own.
      if (isCancellation(err) && meta.cleanup !== undefined && CancellationScope.current().consideredCancelled) {
        const cleanup = meta.cleanup
        try {
          await CancellationScope.nonCancellable(async () => { await cleanup(ctx) })
        } catch (cleanupError) {
          // A failed cleanup is reported as the run's failure rather than hidden behind `canceled`.
          throw toFailure(cleanupError)
        }
      }
      throw toFailure(err)
    }
    const outputProblem = explain(meta.outputSchema, output)
    if (outputProblem !== undefined) throw validationFailure(`Invalid output of workflow ${meta.name}: ${outputProblem}`)
    return output
  }
}
