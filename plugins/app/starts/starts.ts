/**
 * The starts service: starting runs from requests (./start-workflow.ts), update-with-start
 * (./update-with-start.ts), and waiting for a started run's result (./run-workflow.ts).
 */
import type { Config } from '../../../schemas/config.js'
import type { Runs } from '../runs/runs.js'
import type { Control } from '../control/control.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Payloads } from '../payloads/payloads.js'
import type { Webhooks } from '../webhooks/webhooks.js'
import { catalogOf, checkedWorkflow, startWorkflow } from './start-workflow.js'
import { updateWithStart } from './update-with-start.js'
import { runWorkflow, waitForResult } from './run-workflow.js'

export interface StartDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'workflow'>
  payloads: Pick<Payloads, 'uploadedInput' | 'decodeFirstValue'>
  webhooks: Pick<Webhooks, 'target' | 'startDelivery' | 'abandonDelivery'>
  runs: Pick<Runs, 'describeRun' | 'waitForCloseEvent' | 'readRunInput' | 'resultOf'>
  control: Pick<Control, 'updateFailure'>
  config: Pick<Config, 'SERVICE_CATALOG_ID' | 'SERVICE_RUN_TIMEOUT_MS' | 'SERVICE_RUN_MAX_TIMEOUT_MS'>
}

export type Starts = ReturnType<typeof createStarts>

export function createStarts (deps: StartDeps) {
  return {
    catalogOf: catalogOf.bind(null, deps),
    checkedWorkflow: checkedWorkflow.bind(null, deps),
    startWorkflow: startWorkflow.bind(null, deps),
    updateWithStart: updateWithStart.bind(null, deps),
    runWorkflow: runWorkflow.bind(null, deps),
    waitForResult: waitForResult.bind(null, deps)
  }
}
