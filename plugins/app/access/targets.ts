/**
 * A key limited to catalogs or workflow-name patterns, checked against what a request touches
 * (the route's `target`, lib/http/access.ts). The concepts that know what a run, a start or a
 * schedule names are asked through TargetLookup, never imported.
 */
import type { StartWorkflowBody } from '../../../schemas/workflow.js'
import type { Target } from '../../../lib/http/access.js'
import { assertCatalog, assertWorkflowName, forbidden, type Principal } from './principal.js'

/** What access asks the concepts about the things a request names. */
export interface TargetLookup {
  /** The run's catalog and workflow type (404 when there is none): the runs concept. */
  runOf: (workflowId: string, runId?: string) => Promise<{ runId: string, catalog: string, workflowName: string }>
  /** The catalog a start (or schedule) body names: the starts concept. */
  catalogOfStart: (body: StartWorkflowBody) => string
  /** The canonical name of a workflow or alias in a catalog: the catalogs concept. */
  canonicalName: (catalog: string, workflowName: string) => Promise<string>
  /** What a stored schedule starts: the schedules concept. */
  scheduleOf: (scheduleId: string) => Promise<{ catalog: string, workflowName: string }>
}

/** What the check reads of a request. */
export interface TargetRequest {
  target: Target
  params: unknown
  query: unknown
  body: unknown
}

/** The catalog and workflow-name limits of `p`, against the run a request names. */
export async function assertRunWithin (lookup: TargetLookup, p: Principal, workflowId: string, runId?: string): Promise<void> {
  const run = await lookup.runOf(workflowId, runId)
  const ctx = { workflowId, runId: run.runId }
  assertCatalog(p, run.catalog, ctx)
  assertWorkflowName(p, run.workflowName, ctx)
}

/** The catalog and workflow-name limits, against what the request touches. */
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
    const stored = await lookup.scheduleOf((request.params as { scheduleId: string }).scheduleId)
    assertCatalog(p, stored.catalog)
    assertWorkflowName(p, stored.workflowName)
    // A replacement names what the schedule will start from now on.
    const body = request.body as StartWorkflowBody | undefined
    if (body?.workflowName !== undefined) await assertStartable(lookup, p, body)
  } else if (target === 'batch') {
    // A batch acts on whatever a visibility query matches, possibly beyond the key's catalogs and workflows.
    throw forbidden(`Key ${p.keyId} is limited to catalogs or workflows; batch operations need a key without limits`)
  } else if (target === 'runs') {
    const { catalog, workflowName } = request.query as { catalog?: string, workflowName?: string }
    if (p.key.catalogs && catalog === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its catalogs: filter with ?catalog=`)
    if (catalog !== undefined) assertCatalog(p, catalog)
    if (p.key.workflows && workflowName === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its workflows: filter with ?workflowName=`)
    if (workflowName !== undefined) assertWorkflowName(p, workflowName)
  }
}

/** The catalog and workflow a start (or a schedule's body) names. */
async function assertStartable (lookup: TargetLookup, p: Principal, body: StartWorkflowBody): Promise<void> {
  const catalog = lookup.catalogOfStart(body)
  assertCatalog(p, catalog)
  // The canonical name is what runs: an alias must not open a workflow the patterns exclude.
  if (p.key.workflows) assertWorkflowName(p, await lookup.canonicalName(catalog, body.workflowName))
}
