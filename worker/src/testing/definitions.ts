/**
 * Checking a project's definitions in a unit test, with no Temporal server: the worker's own
 * loading (discovery, every workflow's steps and evaluators modules, names, schemas, the catalog),
 * so that a non-step export in steps.ts or a schema JSON Schema cannot describe fails where the
 * author runs the fast tests, not first in a workflow test or at the worker's start.
 */
import { consoleLogger } from '../common/logger.js'
import type { WorkerOptions } from '../runtime/start-worker.js'
import { loadProject } from '../runtime/project.js'

/** Where the workflows are found, as for the worker; `logger` gets discovery's warnings (default: stderr). */
export type DefinitionsCheckOptions = Pick<WorkerOptions, 'packagesFrom' | 'workflowsDir' | 'logger'>

export interface DefinitionsSummary {
  /** Every workflow's name, with the steps and evaluators it can call (its own and shared). */
  workflows: Array<{ name: string, steps: string[], evaluators: string[] }>
}

/** Loads the definitions as `flowport worker` does; rejects with the worker's DefinitionError (file and export named). */
export async function checkDefinitions (options: DefinitionsCheckOptions = {}): Promise<DefinitionsSummary> {
  const project = await loadProject({ ...options, catalogId: 'flowport-definitions-check', logger: options.logger ?? consoleLogger })
  return {
    workflows: project.catalog.workflows.map((w) => ({ name: w.name, steps: w.steps.map((s) => s.name), evaluators: w.evaluators.map((e) => e.name) }))
  }
}
