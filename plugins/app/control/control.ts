/**
 * The control service: acting on one run (stop, terminate, reset) and talking to it (signals,
 * queries, updates, and where an accepted update stands). Every call is pinned to the run the runs
 * service names first, and the answer names that run.
 */
import { stopRun, terminateRun } from './stop.js'
import { runQuery, runUpdate, sendSignal, startUpdate, updateFailure } from './handlers.js'
import { readUpdate } from './update-state.js'
import { resetRun } from './reset.js'
import type { Config } from '../../../schemas/config.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Runs } from '../runs/runs.js'

/** What the parts are given: which run a call is about and its close event come from the runs service. */
export interface ControlDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readCloseEventIfClosed' | 'waitForCloseEvent' | 'outcomeOf' | 'closedRuns'>
  catalogs: Pick<Catalogs, 'get'>
  config: Pick<Config, 'SERVICE_RUN_MAX_TIMEOUT_MS'>
}

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
