/**
 * A diagnostic for a mistake type-only imports cannot catch: a workflow that takes its step types
 * from another workflow's folder. Those steps are not registered for it, so the calls would fail
 * at run time (StepNotFoundError); the worker says so at start.
 */
import { basename, dirname, extname } from 'node:path'
import type { Registry } from '../registry.js'
import { readModuleExports } from './module-exports.js'
import { isRelative, resolveRelative } from './resolve.js'

const COMPONENT_MODULE = new Set(['steps', 'evaluators'])

export function warnForeignSteps (registry: Registry, warn: (message: string) => void): void {
  const shared = new Set([...registry.shared.values()].map((c) => c.file))
  const files = new Set(registry.workflows.map((w) => w.file))
  for (const file of files) {
    for (const specifier of readModuleExports(file).typeImports) {
      if (!isRelative(specifier)) continue
      const target = resolveRelative(file, specifier)
      if (target === undefined || shared.has(target) || dirname(target) === dirname(file)) continue
      if (!COMPONENT_MODULE.has(basename(target, extname(target)))) continue
      warn(`${file}: imports the step types of ${target}, which belongs to another workflow folder; those steps are not registered for this workflow (calls fail with StepNotFoundError). Move them next to the workflow or export them from a package entry as shared steps`)
    }
  }
}
