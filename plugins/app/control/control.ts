/**
 * The control service: acting on one run (stop, terminate, reset, moving it to another version)
 * and talking to it (signals, queries, updates, and where an accepted update stands). Every call is
 * pinned to the run the runs service names first, and the answer names that run.
 */
import { stopRun, terminateRun } from './stop.js'
import { readUpdate, runQuery, runUpdate, sendSignal, startUpdate, updateFailure } from './handlers.js'
import { resetRun } from './reset.js'
import { clearRunVersioning, setRunVersioning } from './run-versioning.js'
import type { ControlDeps } from './deps.js'
import { bindParts } from '../../../lib/bind-parts.js'

export type Control = ReturnType<typeof createControl>

export function createControl (deps: ControlDeps) {
  return bindParts(deps, { stopRun, terminateRun, resetRun, setRunVersioning, clearRunVersioning, sendSignal, runQuery, runUpdate, startUpdate, updateFailure, readUpdate })
}
