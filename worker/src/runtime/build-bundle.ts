/**
 * The workflow bundle a worker would run, without connecting anywhere: for prebuilding, for
 * replay tests (`Worker.runReplayHistories`) and for inspecting what the sandbox receives.
 */
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker'
import type { Catalog } from '@flowport/core/contract'
import { bundleWorkflows } from './bundle.js'
import { consoleLogger } from '../common/logger.js'
import type { WorkerOptions } from './start-worker.js'
import { loadProject } from './project.js'
import { DEFAULT_CATALOG_ID } from '@flowport/core/settings'

export type BuildBundleOptions = Partial<Pick<WorkerOptions, 'catalogId' | 'workflowsDir' | 'packagesFrom' | 'logger' | 'reuseBundle'>>

export async function buildWorkflowBundle (options: BuildBundleOptions = {}): Promise<{ bundle: WorkflowBundleWithSourceMap, catalog: Catalog, activityTypes: string[] }> {
  const logger = options.logger ?? consoleLogger
  const project = await loadProject({ ...options, catalogId: options.catalogId ?? DEFAULT_CATALOG_ID, logger })
  const bundle = await bundleWorkflows({ registry: project.registry, manifest: project.manifest, logger, reuse: options.reuseBundle })
  return { bundle, catalog: project.catalog, activityTypes: Object.keys(project.activities).sort() }
}
