/**
 * Who a request acts as, and the checks of what it may touch. A 403 ForbiddenError names what is
 * missing (the scope, the catalog, the workflow pattern, the bound workflow id); it never says
 * what the credential could do elsewhere.
 */
import { ApiError } from '../../../lib/api-error.js'
import type { ApiKey } from './keys.js'
import { matchesAny } from './patterns.js'
import type { Scope } from '../../../schemas/access.js'
import type { Caller } from '../../../lib/http/access.js'

export interface Principal extends Caller {
  scopes: ReadonlySet<Scope>
  /** The key's limits (a run token keeps its issuer's). */
  key: ApiKey
  /** A run token's workflow id and run. */
  bound?: { workflowId: string, runId?: string }
}

const who = (p: Principal) => p.kind === 'run-token' ? `This run token (issued by key ${p.keyId})` : `Key ${p.keyId}`

export const forbidden = (message: string, extras: { workflowId?: string, runId?: string } = {}) =>
  new ApiError(403, 'ForbiddenError', message, extras)

export function assertScope (p: Principal, scope: Scope): void {
  if (!p.scopes.has(scope)) throw forbidden(`${who(p)} lacks scope ${scope}`)
}

/** A key limited to catalogs may only touch those. */
export function assertCatalog (p: Principal, catalog: string, ctx: { workflowId?: string, runId?: string } = {}): void {
  const { catalogs } = p.key
  if (catalogs && !catalogs.includes(catalog)) throw forbidden(`${who(p)} may not use catalog ${catalog}`, ctx)
}

/** A key limited to workflow-name patterns may only touch matching workflows. */
export function assertWorkflowName (p: Principal, name: string, ctx: { workflowId?: string, runId?: string } = {}): void {
  const { workflows, workflowPatterns } = p.key
  if (workflows && !matchesAny(workflows, name)) {
    throw forbidden(`${who(p)} may not use workflow ${name} (it matches none of ${workflowPatterns!.join(', ')})`, ctx)
  }
}

export const isLimited = (p: Principal) => p.key.catalogs !== undefined || p.key.workflows !== undefined

/** A run token opens its own workflow id only, and a run-bound one only routes naming that run. */
export function assertBound (p: Principal, workflowId: string | undefined, runId: string | undefined): void {
  if (!p.bound) return
  if (workflowId === undefined) throw forbidden(`${who(p)} only opens the routes of workflow ${p.bound.workflowId}`)
  if (workflowId !== p.bound.workflowId) throw forbidden(`${who(p)} is bound to another workflow id`, { workflowId })
  if (p.bound.runId !== undefined && runId !== p.bound.runId) {
    throw forbidden(`${who(p)} is bound to run ${p.bound.runId}: use the /workflow/{id}/runs/{rid}/… routes of that run`, { workflowId, runId })
  }
}
