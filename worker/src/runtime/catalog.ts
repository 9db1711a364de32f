/**
 * The catalog a worker publishes (contract.ts: CatalogSchema) and its hash. The hash covers
 * everything but `publishedAt`, so a worker restarted with the same workflows changes nothing; a
 * versioned worker's catalog names its deployment version, which the hash covers too.
 */
import { createHash } from 'node:crypto'
import type { Catalog, CatalogHandler, CatalogWorkflow, DeploymentVersion } from '@flowport/core/contract'
import type { Registry, RegisteredWorkflow } from './registry.js'
import { toJsonSchema } from './schemas.js'
import type { UpdateDeclaration } from '../workflow/types.js'

function handlers (declared: Record<string, UpdateDeclaration>): CatalogHandler[] {
  return Object.entries(declared).sort(([a], [b]) => a.localeCompare(b)).map(([name, d]) => ({
    name,
    description: d.description ?? null,
    payloadSchema: d.payloadSchema === undefined ? null : toJsonSchema(d.payloadSchema),
    resultSchema: d.resultSchema === undefined ? null : toJsonSchema(d.resultSchema)
  }))
}

function catalogWorkflow ({ meta, own, origin, eval: evalModule }: RegisteredWorkflow): CatalogWorkflow {
  const components = [...own.values()].map((c) => c.definition).sort((a, b) => a.name.localeCompare(b.name))
  return {
    name: meta.name,
    description: meta.description,
    aliases: [...meta.aliases],
    inputSchema: toJsonSchema(meta.inputSchema),
    outputSchema: toJsonSchema(meta.outputSchema),
    steps: components.flatMap((d) => d.kind === 'flowport.step'
      ? [{ name: d.name, description: d.description, inputSchema: toJsonSchema(d.inputSchema), outputSchema: toJsonSchema(d.outputSchema), local: d.options?.local === true }]
      : []),
    evaluators: components.flatMap((d) => d.kind === 'flowport.evaluator'
      ? [{ name: d.name, description: d.description, inputSchema: toJsonSchema(d.inputSchema), local: d.options?.local === true }]
      : []),
    signals: handlers(meta.signals),
    queries: handlers(meta.queries),
    updates: handlers(meta.updates),
    source: { package: origin.package, version: origin.version },
    versioning: meta.versioning ?? 'pinned',
    // Absent without an eval, so the catalogs (and hashes) of workflows without one stay as they were.
    ...(evalModule === undefined
      ? {}
      : { eval: { evaluators: evalModule.definition.evaluators.map((e) => ({ name: e.evaluator, criticality: e.criticality, interpret: e.interpret })) } })
  }
}

/** JSON with sorted keys: the same catalog always hashes the same. */
function canonical (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export function buildCatalog (catalogId: string, registry: Registry, deployment: DeploymentVersion | null = null): { catalog: Catalog, hash: string } {
  const workflows = registry.workflows.map(catalogWorkflow)
  // Left out when unversioned, so an unversioned worker's hash stays what it was.
  const hash = createHash('sha256').update(canonical({ catalog: catalogId, workflows, ...(deployment === null ? {} : { deployment }) })).digest('hex')
  return { catalog: { catalog: catalogId, publishedAt: new Date().toISOString(), deployment, workflows }, hash }
}
