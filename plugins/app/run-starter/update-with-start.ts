/**
 * One engine call starts the run unless an open run holds the id, and updates whichever run it is:
 * "get or create a session and tell it something" (docs/update-with-start.md).
 */
import { randomUUID } from 'node:crypto'
import { WithStartWorkflowOperation, WorkflowUpdateStage } from '@temporalio/client'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import type { StartWorkflowBody } from '../../../schemas/workflow.js'
import { ApiError, ifNotFound, validationError, type Issue } from '../../../lib/api-error.js'
import { handlerArgs, handlerNameOf } from '../control/index.js'
import { isTerminalStatus } from '@flowport/core/run'
import { statusFromEngine } from '../engine/index.js'
import type { StartDeps } from './deps.js'
import { versionRefused, versioningOverrideOf } from './pinned-version.js'
import { assertUsableId, startInput, starterMemo, type StartActions, type StartOptions, type Started } from './start-workflow.js'
import { workflowTypeOf } from '../catalogs/index.js'

export interface UpdatedWithStart {
  run: Started
  updateId: string
  result: unknown
}

function refusedCombinations (body: StartWorkflowBody, idempotencyKey: string | undefined): Issue[] {
  const with_ = (what: string) => `cannot be combined with ${what}`
  return [
    ...(idempotencyKey === undefined ? [] : [{ path: '/update', in: 'body', message: `${with_('an Idempotency-Key header')}: a retry would deliver the update again` }]),
    ...(body.startDelay === undefined ? [] : [{ path: '/startDelay', in: 'body', message: `${with_('update')}: the engine delivers the update at the start` }]),
    ...(body.webhook === undefined ? [] : [{ path: '/webhook', in: 'body', message: `${with_('update')}: the run may be one this request did not start` }])
  ]
}

export function updateActions ({ engine, payloads, runs, control, reservedIds }: StartDeps, { catalogOf, checkedWorkflow }: StartActions) {
  /**
   * An open run of another workflow or catalog under the id would receive an update that its own
   * catalog entry may not declare: refused like a start onto an open run (409).
   */
  async function assertNoOtherOpenRun (workflowId: string, workflowName: string, catalog: string, signal?: AbortSignal): Promise<void> {
    const open = await runs.describeRun({ workflowId, signal }).catch(ifNotFound(undefined))
    if (open === undefined || isTerminalStatus(statusFromEngine(open.status.name))) return
    if (open.type === workflowName && open.taskQueue === catalog) return
    throw new ApiError(409, 'WorkflowAlreadyStartedError',
      `Workflow ${workflowId} is already running as ${open.type} in catalog ${open.taskQueue} (run ${open.runId}); the update is for ${workflowName} in catalog ${catalog}`,
      { workflowId, runId: open.runId })
  }

  async function updateWithStart (body: StartWorkflowBody & { update: NonNullable<StartWorkflowBody['update']> },
    { signal, idempotencyKey, identity, startedBy }: StartOptions = {}): Promise<UpdatedWithStart> {
    const refused = refusedCombinations(body, idempotencyKey)
    if (refused.length > 0) throw validationError(refused)
    assertUsableId(reservedIds, body.workflowId)
    const catalog = catalogOf(body)
    const input = await startInput(payloads, body, signal)
    const workflow = await checkedWorkflow(catalog, body.workflowName, input, signal, { pinned: body.version !== undefined })
    const call = { kind: 'update' as const, name: body.update.name, payload: body.update.payload }
    const args = handlerArgs(workflow, { type: workflow.name, catalog }, call)
    const workflowId = body.workflowId ?? randomUUID()
    if (body.workflowId !== undefined) await assertNoOtherOpenRun(workflowId, workflowTypeOf(workflow), catalog, signal)

    const startWorkflowOperation = new WithStartWorkflowOperation(workflowTypeOf(workflow), {
      workflowId,
      taskQueue: catalog,
      args: [input],
      // An open run takes the update; a closed run's id may be used again, as for a plain start.
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      memo: starterMemo(startedBy),
      ...versioningOverrideOf(body.version)
    })
    const updateId = randomUUID()
    const client = engine.as(identity)
    const handle = await engine.call(() => client.workflow.startUpdateWithStart(handlerNameOf(workflow, 'update', call.name), {
      args: args as [], updateId, startWorkflowOperation, waitForStage: WorkflowUpdateStage.ACCEPTED
    }), { signal, workflowId }).catch((err: unknown) => { throw versionRefused(err, body.version, catalog) })
    const runId = handle.workflowRunId ?? (await runs.describeRun({ workflowId, signal })).runId
    try {
      const result = await engine.call(() => handle.result(), { signal, workflowId, runId })
      // The run that took the update may be one already open, started with another input: read it when needed.
      return { run: { workflowId, runId, workflowName: workflow.name, catalog, input: undefined }, updateId, result: result ?? null }
    } catch (err) {
      // A rejected or failed update: the run exists all the same, and the error names it.
      throw await control.updateFailure(err, { call: { ...call, workflowId, signal }, run: { workflowId, runId }, updateId, lengthBefore: 0 })
    }
  }

  return { updateWithStart }
}

export type UpdateActions = ReturnType<typeof updateActions>
