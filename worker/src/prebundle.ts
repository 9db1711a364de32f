/**
 * `node worker/dist/prebundle.js [out]`: bundles the project's workflows once, at build time
 * (Dockerfile), so workers started with WORKFLOW_BUNDLE=<out> skip webpack at start.
 */
import { resolve } from 'node:path'
import { bundleWorkflows } from './runtime/bundle.js'
import { consoleLogger } from './common/logger.js'
import { loadProject } from './runtime/project.js'
import { entryHash, writePrebuiltBundle } from './runtime/prebuilt-bundle.js'
import { DEFAULT_CATALOG_ID } from '@flowport/core/settings'

const out = resolve(process.argv[2] ?? new URL('./workflow-bundle.js', import.meta.url).pathname)
const project = await loadProject({ catalogId: DEFAULT_CATALOG_ID, workflowsDir: process.env.SERVICE_WORKFLOWS_DIR, logger: consoleLogger })
const bundle = await bundleWorkflows({ registry: project.registry, manifest: project.manifest, logger: consoleLogger })
writePrebuiltBundle(out, bundle, entryHash(project.registry, project.manifest))
consoleLogger.info(`wrote ${out} (${project.catalog.workflows.map((w) => w.name).join(', ')})`)
