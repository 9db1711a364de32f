/** Every call is pinned to the run the runs service names first, and the answer names that run. */
import { stopActions } from './stop.js'
import { handlerActions } from './handlers.js'
import { resetActions } from './reset.js'
import { versioningActions } from './run-versioning.js'
import type { ControlDeps } from './deps.js'

export type Control = ReturnType<typeof createControl>

export function createControl (deps: ControlDeps) {
  return { ...stopActions(deps), ...resetActions(deps), ...versioningActions(deps), ...handlerActions(deps) }
}
