/**
 * GET /workflow/{id}/updates/{updateId}: where an update stands, from the engine's update record
 * (PollWorkflowExecutionUpdate, asked for the accepted stage so it answers at once): accepted and
 * running, completed with its result, or failed with the handler's error.
 */
import protoRoot from '@temporalio/proto'
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import { ApiError } from '../../../lib/api-error.js'
import type { UpdateState } from '../../../schemas/workflow.js'
import type { ControlDeps } from './deps.js'

const { UpdateWorkflowExecutionLifecycleStage } = protoRoot.temporal.api.enums.v1

export interface UpdateRef { workflowId: string, updateId: string, signal?: AbortSignal }

export async function readUpdate ({ engine }: Pick<ControlDeps, 'engine'>, ref: UpdateRef): Promise<UpdateState> {
  const { namespace, loadedDataConverter } = engine.client.options
  const ctx = { workflowId: ref.workflowId }
  const res = await engine.call(() => engine.client.workflowService.pollWorkflowExecutionUpdate({
    namespace,
    updateRef: { workflowExecution: { workflowId: ref.workflowId }, updateId: ref.updateId },
    waitPolicy: { lifecycleStage: UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED }
  }), { signal: ref.signal, ...ctx }).catch((err: unknown) => {
    if (err instanceof ApiError && err.statusCode === 404) {
      throw new ApiError(404, 'UpdateNotFoundError', `Workflow ${ref.workflowId} has no accepted update ${ref.updateId} in its latest run`, ctx)
    }
    throw err
  })
  const run = { workflowId: ref.workflowId, runId: res.updateRef?.workflowExecution?.runId ?? '', updateId: ref.updateId }
  const outcome = res.outcome
  if (outcome?.failure) return { ...run, state: 'failed', result: null, error: outcome.failure.message ?? 'the update handler failed' }
  if (outcome?.success) {
    const result = await decodeFromPayloadsAtIndex(loadedDataConverter, 0, outcome.success.payloads ?? [])
    return { ...run, state: 'completed', result: result ?? null, error: null }
  }
  return { ...run, state: 'accepted', result: null, error: null }
}
