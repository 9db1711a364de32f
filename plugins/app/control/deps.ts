/**
 * What the control service is built from, and what each of its functions takes first.
 */
import type { Config } from '../../../schemas/config.js'
import type { Engine } from '../engine/index.js'
import type { Catalogs } from '../catalogs/index.js'
import type { Runs } from '../runs/index.js'
import type { Deployments } from '../deployments/index.js'

/** Which run a call is about and its close event come from the runs service. */
export interface ControlDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readCloseEventIfClosed' | 'waitForCloseEvent' | 'outcomeOf' | 'closedRuns'>
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  /** Which versions a deployment has (moving a run to one: plugins/app/control/run-versioning.ts). */
  deployments: Pick<Deployments, 'routing'>
  config: Pick<Config, 'SERVICE_RUN_MAX_TIMEOUT_MS' | 'SERVICE_PAYLOAD_REF_THRESHOLD_BYTES'>
}
