/**
 * Loads a project: the flagged packages in `<packagesFrom>/node_modules` (in name order), then the
 * local workflows folder, whose shared steps therefore win over same-named ones from packages.
 */
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Catalog } from '@flowport/core/contract'
import type { Manifest } from '../workflow/manifest.js'
import { buildActivities } from './activities.js'
import { SOURCE_MODE } from './bundle.js'
import { buildCatalog } from './catalog.js'
import { DefinitionError } from './definition-error.js'
import { loadErrorHooks, type LoadedErrorHook } from './discovery/error-hooks.js'
import { warnForeignSteps } from './discovery/foreign-steps.js'
import { loadSource, type LoadedSource, type Origin } from './discovery/load.js'
import { findWorkflowPackages, nearestPackage } from './discovery/packages.js'
import { resolvePackageEntry } from './discovery/resolve.js'
import type { Logger } from '../common/logger.js'
import { buildRegistry, type Registry } from './registry.js'

export interface ProjectOptions {
  /** Catalog id = task queue polled and catalog published. */
  catalogId: string
  /** Local workflows folder; its `index` module is the entry. Default: `./workflows` when it exists. */
  workflowsDir?: string
  /** Directory whose `node_modules` is scanned for workflow packages. Default: the current directory. */
  packagesFrom?: string
  logger: Logger
}

export interface Project {
  registry: Registry
  activities: Record<string, (input: unknown) => Promise<unknown>>
  manifest: Manifest
  catalog: Catalog
  hash: string
  /** The packages' `onError` hooks (package.json `flowport.onError`), in package name order. */
  errorHooks: LoadedErrorHook[]
}

const ENTRY_NAMES = ['index.ts', 'index.mts', 'index.js', 'index.mjs']

async function loadLocal (options: ProjectOptions, warn: (message: string) => void): Promise<LoadedSource | undefined> {
  const explicit = options.workflowsDir !== undefined
  const dir = resolve(options.workflowsDir ?? 'workflows')
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    if (explicit) throw new DefinitionError(`Workflows folder ${dir} does not exist`)
    return undefined
  }
  const entry = ENTRY_NAMES.map((name) => join(dir, name)).find(existsSync)
  if (entry === undefined) {
    warn(`${dir}: no index module (${ENTRY_NAMES.join(', ')}); no local workflows registered`)
    return undefined
  }
  const pkg = nearestPackage(dir)?.pkg
  const origin: Origin = { package: pkg?.name ?? 'local', version: pkg?.version ?? null, label: 'local workflows' }
  return await loadSource(entry, origin, warn)
}

export async function loadProject (options: ProjectOptions): Promise<Project> {
  const warn = (message: string): void => { options.logger.warn(message) }
  const conditions = new Set([...(SOURCE_MODE ? ['flowport-source'] : []), 'import', 'node', 'default'])
  const sources: LoadedSource[] = []
  const packages = findWorkflowPackages(resolve(options.packagesFrom ?? '.'))
  for (const found of packages) {
    const entry = resolvePackageEntry(found.root, found.pkg, conditions)
    if (entry === undefined) throw new DefinitionError(`${join(found.root, 'package.json')}: package ${found.name} has the flowport flag but no entry module`)
    sources.push(await loadSource(entry, { package: found.name, version: found.version, label: `package ${found.name}` }, warn))
  }
  const local = await loadLocal(options, warn)
  if (local !== undefined) sources.push(local)

  const registry = buildRegistry(sources, warn)
  warnForeignSteps(registry, warn)
  const { activities, manifest } = buildActivities(registry)
  const { catalog, hash } = buildCatalog(options.catalogId, registry)
  const errorHooks = await loadErrorHooks(packages, conditions)
  return { registry, activities, manifest, catalog, hash, errorHooks }
}
