import type { Config } from '../../../schemas/config.js'
import type { Engine } from '../engine/index.js'
import type { Catalogs } from '../catalogs/index.js'
import type { Runs } from '../runs/index.js'
import type { Deployments } from '../deployments/index.js'

export interface ControlDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readCloseEventIfClosed' | 'waitForCloseEvent' | 'outcomeOf' | 'closedRuns'>
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  deployments: Pick<Deployments, 'routing'>
  config: Pick<Config, 'SERVICE_RUN_MAX_TIMEOUT_MS' | 'SERVICE_PAYLOAD_REF_THRESHOLD_BYTES'>
}
