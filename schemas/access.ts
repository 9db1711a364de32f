/**
 * The access vocabulary (docs/access-control.md): the scopes a key or run token holds, and which
 * of them a run token may carry (those that act on one workflow id).
 */
import { Type, type Static } from '@sinclair/typebox'
import { ref } from './common.js'

export const SCOPES = ['read', 'run', 'interact', 'control', 'admin'] as const
export type Scope = typeof SCOPES[number]

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  read: 'catalog, status, result, input, history, stream, trace, runs listing, reading schedules',
  run: 'start and run workflows, upload payloads',
  interact: 'signal, query and update runs',
  control: 'stop, terminate and reset runs; batch operations; schedules (create, replace, pause, unpause, trigger, backfill, delete); ' +
    'worker deployments (list, show, make a version current, ramp, roll back)',
  admin: 'issue run tokens (POST /tokens)'
}

export const RUN_TOKEN_SCOPES = ['read', 'interact', 'control'] as const satisfies readonly Scope[]

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value)

export const ScopeSchema = Type.Unsafe<Scope>({
  type: 'string',
  enum: [...SCOPES],
  $id: 'Scope',
  description: Object.entries(SCOPE_DESCRIPTIONS).map(([scope, what]) => `\`${scope}\`: ${what}`).join('. ')
})

export const CredentialSchema = Type.Object({
  kind: Type.Unsafe<'key' | 'runToken' | 'open'>({
    type: 'string',
    enum: ['key', 'runToken', 'open'],
    description: '`key`: an API key; `runToken`: a run token (POST /tokens); `open`: auth is off, every route is open to anyone'
  }),
  keyId: Type.Union([Type.String(), Type.Null()], { description: 'The key, or the key that issued the run token; null when auth is off' }),
  scopes: Type.Array(ref(ScopeSchema), { description: 'What the credential may do; a route needing another scope answers 403' }),
  catalogs: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The only catalogs it may touch; null: any' }),
  workflows: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The workflow-name patterns it may touch; null: any' }),
  boundTo: Type.Union([Type.Object({
    workflowId: Type.String(),
    runId: Type.Union([Type.String(), Type.Null()], { description: 'Null: every run of the workflow id' })
  }, { title: 'CredentialBinding', additionalProperties: false }), Type.Null()], { description: 'A run token\'s workflow id (and run); null for a key' })
}, {
  $id: 'Credential',
  additionalProperties: false,
  description: 'What the credential of the request may do, so that a page or a tool can disable what it cannot (a refusal still comes as 403)',
  examples: [{ kind: 'key', keyId: 'operator', scopes: ['read', 'run', 'interact', 'control'], catalogs: null, workflows: null, boundTo: null }]
})

export type Credential = Static<typeof CredentialSchema>
