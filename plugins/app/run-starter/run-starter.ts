import { startActions } from './start-workflow.js'
import { updateActions } from './update-with-start.js'
import { runActions } from './run-workflow.js'
import type { StartDeps } from './deps.js'

export type RunStarter = ReturnType<typeof createRunStarter>

export function createRunStarter (deps: StartDeps) {
  const starts = startActions(deps)
  const updates = updateActions(deps, starts)
  return { ...starts, ...updates, ...runActions(deps, { ...starts, ...updates }) }
}
