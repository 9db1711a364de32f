/**
 * The access vocabulary (README "Access control"): the scopes a key or run token holds, which of
 * them a run token may carry (those that act on one workflow id), and what GET /access tells a caller.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Nullable } from './common.js'
import { Literals } from './status.js'

export const SCOPES = ['read', 'run', 'interact', 'control', 'admin'] as const
export type Scope = typeof SCOPES[number]

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'catalog, status, result, input, history, stream, trace, runs listing, reading schedules and worker deployments',
  run: 'start and run workflows, upload payloads',
  interact: 'signal, query and update runs',
  control: 'stop, terminate and reset runs; batch operations; schedules (create, replace, pause, unpause, trigger, backfill, delete); ' +
    'worker deployments (make a version current, ramp, roll back)',
  admin: 'issue run tokens (POST /tokens)'
}

export const RUN_TOKEN_SCOPES = ['read', 'interact', 'control'] as const satisfies readonly Scope[]

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value)

/**
 * GET /access: what the request's own credential may do, so a page can offer only what the key
 * may do (the inspector disables what needs a scope the key lacks) instead of learning it from 403s.
 */
export const CallerAccessSchema = Type.Object({
  auth: Type.Boolean({ description: 'false: auth is off, every route is open to anyone (then `scopes` lists them all)' }),
  keyId: Nullable(Type.String({ description: 'The key the request carries (a run token\'s: its issuer); null with auth off' })),
  kind: Nullable(Literals(['key', 'run-token'] as const, { description: 'An API key or a run token; null with auth off' })),
  scopes: Type.Array(Literals(SCOPES), { description: 'The scopes it holds' }),
  catalogs: Nullable(Type.Array(Type.String(), { description: 'The only catalogs it may use; null: any' })),
  workflows: Nullable(Type.Array(Type.String(), { description: 'The workflow-name patterns it may use (`*`: any characters); null: any' }))
}, {
  $id: 'CallerAccess',
  additionalProperties: false,
  examples: [{ auth: true, keyId: 'dashboard', kind: 'key', scopes: ['read'], catalogs: null, workflows: null }]
})

export type CallerAccess = Static<typeof CallerAccessSchema>
