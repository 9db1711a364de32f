/**
 * Every route declares its scope and target (`config: access('read', 'workflow')`);
 * test/access-routes.test.ts fails a route without one, which needs every scope (fail closed).
 */
import type { Scope } from '../../../schemas/access.js'

/**
 * What a request touches, for a key limited to catalogs or workflow-name patterns:
 * - `workflow`: the run named by the `id` (and `rid`) path parameters;
 * - `catalog`: the catalog named by `catalogId` (the default catalog without it);
 * - `start`: the catalog and workflow name of a start/run body;
 * - `runs`: the `catalog` and `workflowName` filters of a listing (runs, schedules);
 * - `schedule`: the catalog and workflow of the schedule named by `scheduleId`, and of a replacing body;
 * - `batch`: runs a visibility query picks (batch operations): refused to a limited key;
 * - `eval`: the eval run named by `evalId`: its catalog, and the workflow its id names;
 * - `deployment`: a worker deployment, whose versions serve every workflow of their task queues: refused to a limited key;
 * - `self`: the credential itself (GET /me): open to a run token too, whatever it is bound to;
 * - `none`: nothing a limit applies to.
 */
export type Target = 'workflow' | 'catalog' | 'start' | 'runs' | 'schedule' | 'batch' | 'eval' | 'deployment' | 'self' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean
    /** EventSource cannot send headers, so `?runToken=` is read too. */
    queryToken?: boolean
    scope?: Scope
    target?: Target
  }
}

export const access = (scope: Scope, target: Target) => ({ scope, target })

export interface Caller {
  keyId: string
  kind: 'key' | 'run-token'
}

/** Visible in the run's history. */
const identityOf = (p: Caller) => `flowport:${p.keyId}${p.kind === 'run-token' ? '/run-token' : ''}`

/** Undefined when auth is off (the client's default). */
export const engineIdentity = (request: { principal: Caller | null }) =>
  request.principal ? identityOf(request.principal) : undefined

/** The key id is what the memo keeps (`startedBy`). */
export const starterOf = (request: { principal: Caller | null }) =>
  ({ identity: engineIdentity(request), startedBy: request.principal?.keyId })
