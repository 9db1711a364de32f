/**
 * What the parts of run control are given: the engine, the runs service (which run a call is
 * about, its close event), the catalogs (which handlers a run's workflow declares) and the slice
 * of settings they read.
 */
import type { Config } from '../../../schemas/config.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Runs } from '../runs/runs.js'

export interface ControlDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readCloseEventIfClosed' | 'waitForCloseEvent' | 'outcomeOf' | 'closedRuns'>
  catalogs: Pick<Catalogs, 'get'>
  config: Pick<Config, 'SERVICE_RUN_MAX_TIMEOUT_MS'>
}
