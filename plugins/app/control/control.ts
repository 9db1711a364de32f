/** Every call is pinned to the run the runs service names first, and the answer names that run. */
import { stopRun, terminateRun } from './stop.js'
import { readUpdate, runQuery, runUpdate, sendSignal, startUpdate, updateFailure } from './handlers.js'
import { resetRun } from './reset.js'
import { clearRunVersioning, setRunVersioning } from './run-versioning.js'
import type { ControlDeps } from './deps.js'

export type Control = ReturnType<typeof createControl>

export function createControl (deps: ControlDeps) {
  return {
    stopRun: stopRun.bind(undefined, deps),
    terminateRun: terminateRun.bind(undefined, deps),
    resetRun: resetRun.bind(undefined, deps),
    setRunVersioning: setRunVersioning.bind(undefined, deps),
    clearRunVersioning: clearRunVersioning.bind(undefined, deps),
    sendSignal: sendSignal.bind(undefined, deps),
    runQuery: runQuery.bind(undefined, deps),
    runUpdate: runUpdate.bind(undefined, deps),
    startUpdate: startUpdate.bind(undefined, deps),
    updateFailure: updateFailure.bind(undefined, deps),
    readUpdate: readUpdate.bind(undefined, deps)
  }
}
