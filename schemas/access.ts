/**
 * The access vocabulary (README "Access control"): the scopes a key or run token holds, and which
 * of them a run token may carry (those that act on one workflow id).
 */
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
