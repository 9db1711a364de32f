import { isReserved } from '@flowport/core/contract'
import type { RunRef } from '@flowport/core/run'
import { ApiError, notFound } from '../../../../lib/api-error.js'

/** Internal workflows (the published catalogs, `__flowport_catalog:<id>`) are not the API's to show, signal or stop. */
export const isReservedWorkflowId = isReserved

/** Worded as the engine's describe words it. */
export function runNotFound (run: RunRef): ApiError {
  return notFound(`Workflow ${run.workflowId} run ${run.runId} not found`, run)
}

export function alreadyClosed (run: RunRef, status: string): ApiError {
  return new ApiError(409, 'WorkflowAlreadyClosedError', `Workflow ${run.workflowId} run ${run.runId} is already closed (${status})`, run)
}

/** After a describe said "open", a not-found from the engine means the run closed in between. */
export function closedMeanwhile (err: unknown, run: RunRef): unknown {
  return err instanceof ApiError && err.statusCode === 404 ? alreadyClosed(run, 'closed meanwhile') : err
}
