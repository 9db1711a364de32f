/** A 403 names what is missing (scope, catalog, pattern, bound id), never what the credential could do elsewhere. */
import { ApiError } from '../../../lib/api-error.js'
import type { ApiKey } from './keys.js'
import type { Scope } from '../../../schemas/access.js'
import type { StartWorkflowBody } from '../../../schemas/workflow.js'
import type { Caller, Target } from './route-access.js'
import { workflowOfEvalId } from '@flowport/core/eval'
import type { Catalogs } from '../catalogs/index.js'
import type { Runs } from '../runs/index.js'
import type { Schedules } from '../schedules/index.js'
import type { RunStarter } from '../run-starter/index.js'

export interface Principal extends Caller {
  scopes: ReadonlySet<Scope>
  /** A run token keeps its issuer's. */
  key: ApiKey
  bound?: { workflowId: string, runId?: string }
}

const who = (p: Principal) => p.kind === 'run-token' ? `This run token (issued by key ${p.keyId})` : `Key ${p.keyId}`

export const forbidden = (message: string, extras: { workflowId?: string, runId?: string } = {}) =>
  new ApiError(403, 'ForbiddenError', message, extras)

export function assertScope (p: Principal, scope: Scope): void {
  if (!p.scopes.has(scope)) throw forbidden(`${who(p)} lacks scope ${scope}`)
}

export function assertCatalog (p: Principal, catalog: string, ctx: { workflowId?: string, runId?: string } = {}): void {
  const { catalogs } = p.key
  if (catalogs && !catalogs.includes(catalog)) throw forbidden(`${who(p)} may not use catalog ${catalog}`, ctx)
}

export function assertWorkflowName (p: Principal, name: string, ctx: { workflowId?: string, runId?: string } = {}): void {
  const { workflows, workflowPatterns } = p.key
  if (workflows && !workflows.some((w) => w.test(name))) {
    throw forbidden(`${who(p)} may not use workflow ${name} (it matches none of ${workflowPatterns!.join(', ')})`, ctx)
  }
}

export const isLimited = (p: Principal) => p.key.catalogs !== undefined || p.key.workflows !== undefined

export function assertBound (p: Principal, workflowId: string | undefined, runId: string | undefined): void {
  if (!p.bound) return
  if (workflowId === undefined) throw forbidden(`${who(p)} only opens the routes of workflow ${p.bound.workflowId}`)
  if (workflowId !== p.bound.workflowId) throw forbidden(`${who(p)} is bound to another workflow id`, { workflowId })
  if (p.bound.runId !== undefined && runId !== p.bound.runId) {
    throw forbidden(`${who(p)} is bound to run ${p.bound.runId}: use the /workflow/{id}/runs/{rid}/… routes of that run`, { workflowId, runId })
  }
}

export interface TargetLookup {
  /** 404 when there is none. */
  runs: Pick<Runs, 'describeRun'>
  runStarter: Pick<RunStarter, 'catalogOf'>
  catalogs: Pick<Catalogs, 'workflow' | 'clientName'>
  schedules: Pick<Schedules, 'target'>
}

export interface TargetRequest {
  target: Target
  params: unknown
  query: unknown
  body: unknown
}

export async function assertRunWithin (lookup: TargetLookup, p: Principal, workflowId: string, runId?: string): Promise<void> {
  const run = await lookup.runs.describeRun({ workflowId, runId })
  const ctx = { workflowId, runId: run.runId }
  assertCatalog(p, run.taskQueue, ctx)
  // Keys name workflows as clients do: a declared workflow's name, not its Temporal type.
  if (p.key.workflows) assertWorkflowName(p, await lookup.catalogs.clientName(run.taskQueue, run.type), ctx)
}

export async function assertTarget (lookup: TargetLookup, defaultCatalog: string, request: TargetRequest, p: Principal): Promise<void> {
  const { target } = request
  if (target === 'workflow') {
    const { id, rid } = request.params as { id: string, rid?: string }
    await assertRunWithin(lookup, p, id, rid)
  } else if (target === 'catalog') {
    const { catalogId } = request.params as { catalogId?: string }
    assertCatalog(p, catalogId ?? defaultCatalog)
  } else if (target === 'start') {
    await assertStartable(lookup, p, request.body as StartWorkflowBody)
  } else if (target === 'schedule') {
    const stored = await lookup.schedules.target((request.params as { scheduleId: string }).scheduleId)
    assertCatalog(p, stored.catalog)
    assertWorkflowName(p, stored.workflowName)
    // A replacement names what the schedule will start from now on.
    const body = request.body as StartWorkflowBody | undefined
    if (body?.workflowName !== undefined) await assertStartable(lookup, p, body)
  } else if (target === 'eval') {
    // An eval run is scoped like a run of the workflow it judges, which its id names (the API makes these ids).
    const { evalId } = request.params as { evalId: string }
    const run = await lookup.runs.describeRun({ workflowId: evalId })
    assertCatalog(p, run.taskQueue, { workflowId: evalId, runId: run.runId })
    assertWorkflowName(p, workflowOfEvalId(evalId) ?? evalId, { workflowId: evalId, runId: run.runId })
  } else if (target === 'batch') {
    // A batch acts on whatever a visibility query matches, possibly beyond the key's catalogs and workflows.
    throw forbidden(`Key ${p.keyId} is limited to catalogs or workflows; batch operations need a key without limits`)
  } else if (target === 'deployment') {
    // Which version new runs go to holds for every workflow on the deployment's task queues, whatever its name says.
    throw forbidden(`Key ${p.keyId} is limited to catalogs or workflows; worker deployments need a key without limits`)
  } else if (target === 'runs') {
    const { catalog, workflowName } = request.query as { catalog?: string, workflowName?: string }
    if (p.key.catalogs && catalog === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its catalogs: filter with ?catalog=`)
    if (catalog !== undefined) assertCatalog(p, catalog)
    if (p.key.workflows && workflowName === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its workflows: filter with ?workflowName=`)
    if (workflowName !== undefined) assertWorkflowName(p, workflowName)
  }
}

async function assertStartable (lookup: TargetLookup, p: Principal, body: StartWorkflowBody): Promise<void> {
  const catalog = lookup.runStarter.catalogOf(body)
  assertCatalog(p, catalog)
  // The canonical name is what runs: an alias must not open a workflow the patterns exclude.
  if (p.key.workflows) assertWorkflowName(p, (await lookup.catalogs.workflow(catalog, body.workflowName, undefined, { pinned: body.version !== undefined })).name)
}
