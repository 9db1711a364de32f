/**
 * What a credential may do (docs/access-control.md). Every route declares the scope it needs and
 * what it touches in its route options, `config: access('read', 'workflow')`; test/access-routes.test.ts
 * walks the route table so a route without a declaration fails. A route that declares nothing
 * needs a key holding every scope (fail closed). This file is the access concept's face for routes:
 * the rest of the concept checks the declarations; routes read who calls (`request.principal`)
 * through the helpers below.
 */
import type { Scope } from '../../../schemas/access.js'

/**
 * What a request touches, so a key limited to catalogs or workflow-name patterns can be checked:
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
    /** Open to anyone (health, readiness, the API description). */
    public?: boolean
    /** Stream routes: EventSource cannot send headers, so `?runToken=` (a run token; `?access_token=` its older name) is read too. */
    queryToken?: boolean
    scope?: Scope
    target?: Target
  }
}

/** The route-options `config` declaring a route's scope and target. */
export const access = (scope: Scope, target: Target) => ({ scope, target })

/** Who a request acts as, as far as routes need it (the access concept's Principal, plugins/app/access/principal.ts). */
export interface Caller {
  /** The key: itself, or the key that issued the run token. */
  keyId: string
  kind: 'key' | 'run-token'
}

/** The engine's `identity` for calls made on the caller's behalf: visible in the run's history. */
const identityOf = (p: Caller) => `flowport:${p.keyId}${p.kind === 'run-token' ? '/run-token' : ''}`

/** The engine identity of a request's calls; undefined when auth is off (the client's default). */
export const engineIdentity = (request: { principal: Caller | null }) =>
  request.principal ? identityOf(request.principal) : undefined

/** Who starts a run: the engine identity of the start, and the key id its memo keeps (`startedBy`). */
export const starterOf = (request: { principal: Caller | null }) =>
  ({ identity: engineIdentity(request), startedBy: request.principal?.keyId })
