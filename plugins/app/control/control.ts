/**
 * The control service: acting on one run (stop, terminate, reset) and talking to it (signals,
 * queries, updates, and where an accepted update stands). Every call is pinned to the run the runs
 * service names first, and the answer names that run.
 */
import { stopRun, terminateRun } from './stop.js'
import { runQuery, runUpdate, sendSignal, startUpdate, updateFailure } from './handlers.js'
import { readUpdate } from './update-state.js'
import { resetRun } from './reset.js'
import type { ControlDeps } from './deps.js'

export type Control = ReturnType<typeof createControl>

export function createControl (deps: ControlDeps) {
  // Each method is a part of the concept with the service's dependencies given.
  return {
    stopRun: stopRun.bind(undefined, deps),
    terminateRun: terminateRun.bind(undefined, deps),
    resetRun: resetRun.bind(undefined, deps),
    sendSignal: sendSignal.bind(undefined, deps),
    runQuery: runQuery.bind(undefined, deps),
    runUpdate: runUpdate.bind(undefined, deps),
    startUpdate: startUpdate.bind(undefined, deps),
    updateFailure: updateFailure.bind(undefined, deps),
    readUpdate: readUpdate.bind(undefined, deps)
  }
}
