/**
 * The starts service: starting runs from requests (./start-workflow.ts), update-with-start
 * (./update-with-start.ts), and waiting for a started run's result (./run-workflow.ts).
 */
import { catalogOf, checkedWorkflow, startWorkflow } from './start-workflow.js'
import { updateWithStart } from './update-with-start.js'
import { runWorkflow, waitForResult } from './run-workflow.js'
import type { StartDeps } from './deps.js'
import { bindParts } from '../../../lib/bind-parts.js'

export type Starts = ReturnType<typeof createStarts>

export function createStarts (deps: StartDeps) {
  return bindParts(deps, { catalogOf, checkedWorkflow, startWorkflow, updateWithStart, runWorkflow, waitForResult })
}
