import { catalogOf, checkedWorkflow, startWorkflow } from './start-workflow.js'
import { updateWithStart } from './update-with-start.js'
import { runWorkflow, waitForResult } from './run-workflow.js'
import type { StartDeps } from './deps.js'

export type RunStarter = ReturnType<typeof createRunStarter>

export function createRunStarter (deps: StartDeps) {
  return {
    catalogOf: catalogOf.bind(undefined, deps),
    checkedWorkflow: checkedWorkflow.bind(undefined, deps),
    startWorkflow: startWorkflow.bind(undefined, deps),
    updateWithStart: updateWithStart.bind(undefined, deps),
    runWorkflow: runWorkflow.bind(undefined, deps),
    waitForResult: waitForResult.bind(undefined, deps)
  }
}
