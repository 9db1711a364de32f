/**
 * The API's own document with the catalog's schemas where it says "any JSON value": start/run
 * bodies and WorkflowResult become unions discriminated by `workflowName`, and each handler name
 * gets a typed operation at its concrete path beside the generic one (docs/catalog-openapi.md).
 */
import type { Catalog, CatalogHandler, CatalogWorkflow } from '@flowport/core/contract'
import type { OpenApiDocument } from '../../../schemas/catalog.js'
import { plainEnums, pruneUnusedComponents } from '../../../lib/openapi-for-generators.js'

type Json = Record<string, any>
type Kind = 'signal' | 'query' | 'update'

const LIST = { signal: 'signals', query: 'queries', update: 'updates' } as const
const GENERIC = {
  signal: { path: '/workflow/{id}/signal/{name}', param: 'name', result: null },
  query: { path: '/workflow/{id}/query/{query}', param: 'query', result: 'QueryResult' },
  update: { path: '/workflow/{id}/update/{name}', param: 'name', result: 'UpdateResult' }
} as const

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const handlerKey = (w: CatalogWorkflow, kind: Kind, name: string, part: 'Payload' | 'Result') => `${w.name}.${kind}.${name}.${part}`
const orNull = (schema: Json) => ({ anyOf: [schema, { type: 'null' }] })

/** A catalog's JSON Schema as a component: its own `$id`/`$schema` would re-root references. */
function component (schema: Json): Json {
  const { $id: _id, $schema: _schema, ...rest } = schema
  return rest
}

const withStartKey = (w: CatalogWorkflow, name: string) => `${w.name}.update.${name}.WithStart`

function bodyVariant (base: Json, schemas: Json, workflow: CatalogWorkflow, catalogId: string, defaultCatalog: string): Json {
  const { examples: _examples, $id: _id, ...body } = structuredClone(base)
  body.properties.workflowName = { type: 'string', enum: [workflow.name, ...workflow.aliases], description: `${workflow.name}${workflow.aliases.length ? ` or an alias (${workflow.aliases.join(', ')})` : ''}` }
  body.properties.input = { ...schemaRef(`${workflow.name}.Input`), description: workflow.description }
  body.properties.catalog = { type: 'string', enum: [catalogId], description: 'This document\'s catalog' }
  if (workflow.updates.length === 0) delete body.properties.update
  else {
    // Each a component: generators name an inline object after where it sits, and two such names can collide.
    for (const u of workflow.updates) {
      schemas[withStartKey(workflow, u.name)] = {
        type: 'object',
        additionalProperties: false,
        required: u.payloadSchema ? ['name', 'payload'] : ['name'],
        properties: { name: { type: 'string', enum: [u.name] }, ...(u.payloadSchema ? { payload: schemaRef(handlerKey(workflow, 'update', u.name, 'Payload')) } : {}) },
        description: `Update-with-start: ${workflow.name}'s update ${u.name}`
      }
    }
    const updates = workflow.updates.map((u) => schemaRef(withStartKey(workflow, u.name)))
    const description = 'Update-with-start (docs/update-with-start.md): one of this workflow\'s updates, typed'
    body.properties.update = updates.length === 1 ? { ...updates[0], description } : { description, oneOf: updates }
  }
  if (catalogId !== defaultCatalog) body.required = [...new Set([...(body.required ?? []), 'catalog'])]
  return body
}

/** A single member is written plainly: linters refuse a one-branch `oneOf`. */
function union (variants: string[], workflows: CatalogWorkflow[], names: (w: CatalogWorkflow) => string[], description: string): Json {
  if (variants.length === 1) return { ...schemaRef(variants[0]), description }
  const mapping: Record<string, string> = {}
  workflows.forEach((w, i) => { for (const name of names(w)) mapping[name] = schemaRef(variants[i]).$ref })
  return { oneOf: variants.map(schemaRef), discriminator: { propertyName: 'workflowName', mapping }, description }
}
const withAliases = (w: CatalogWorkflow) => [w.name, ...w.aliases]

/** The workflows declaring a handler name share its path, so their schemas are a union. */
function handlerOperation (doc: Json, kind: Kind, name: string, declared: Array<{ workflow: CatalogWorkflow, handler: CatalogHandler }>): Json {
  const generic = doc.paths[GENERIC[kind].path]?.post
  const op = structuredClone(generic)
  const key = (w: CatalogWorkflow, part: 'Payload' | 'Result') => handlerKey(w, kind, name, part)
  const payloads: Json[] = []
  const results: Json[] = []
  for (const { workflow, handler } of declared) {
    if (handler.payloadSchema) {
      doc.components.schemas[key(workflow, 'Payload')] = component(handler.payloadSchema)
      payloads.push(schemaRef(key(workflow, 'Payload')))
    }
    // A result that can only be null says nothing the generic `result` does not, and `anyOf [null, null]`
    // breaks generators (openapi-generator's Go client references a type it never writes).
    if (handler.resultSchema && handler.resultSchema.type !== 'null') {
      doc.components.schemas[key(workflow, 'Result')] = component(handler.resultSchema)
      results.push(schemaRef(key(workflow, 'Result')))
    }
  }
  const one = (list: Json[]) => list.length === 1 ? list[0] : { anyOf: list }
  const takesPayload = payloads.length === declared.length
  const properties = payloads.length === 0 ? {} : { payload: one(payloads) }
  op.operationId = `${generic.operationId}_${name}`
  op.summary = `${generic.summary}: ${kind} ${name} (${declared.map((d) => d.workflow.name).join(', ')})`
  op.description = [...new Set(declared.map((d) => d.handler.description).filter(Boolean))].join(' ') || generic.description
  op.parameters = (op.parameters ?? []).filter((p: Json) => !(p.in === 'path' && p.name === GENERIC[kind].param))
  op.requestBody = {
    required: takesPayload,
    content: { 'application/json': { schema: { type: 'object', properties, required: takesPayload ? ['payload'] : [], additionalProperties: false } } }
  }
  const resultName = GENERIC[kind].result
  if (resultName !== null && results.length > 0) {
    const typed = structuredClone(doc.components.schemas[resultName])
    delete typed.$id
    typed.properties.result = orNull(one(results))
    op.responses['200'] = { ...op.responses['200'], content: { 'application/json': { schema: typed } } }
  }
  return op
}

export function catalogDocument (base: Json, catalog: Catalog, defaultCatalog: string): Json {
  const doc = structuredClone(base)
  const { schemas } = doc.components
  doc.info = {
    ...doc.info,
    title: `${doc.info.title}: catalog ${catalog.catalog}`,
    description: `${doc.info.description as string} This document is typed for catalog \`${catalog.catalog}\` as published at ` +
      `${catalog.publishedAt}: start/run bodies, results and handler payloads carry the catalog's JSON Schemas (docs/catalog-openapi.md).`
  }
  doc['x-flowport-catalog'] = { catalog: catalog.catalog, publishedAt: catalog.publishedAt }
  const workflows = catalog.workflows
  if (workflows.length === 0) return doc

  for (const w of workflows) {
    schemas[`${w.name}.Input`] = component(w.inputSchema)
    schemas[`${w.name}.Output`] = component(w.outputSchema)
    schemas[`${w.name}.StartBody`] = bodyVariant(schemas.StartWorkflowBody, schemas, w, catalog.catalog, defaultCatalog)
    schemas[`${w.name}.RunBody`] = bodyVariant(schemas.RunWorkflowBody, schemas, w, catalog.catalog, defaultCatalog)
    const result = structuredClone(schemas.WorkflowResult)
    delete result.$id
    result.description = `The outcome of a closed run of ${w.name}`
    result.properties.workflowName = { type: 'string', enum: [w.name], description: `${w.name}: a result names the workflow's canonical name, never an alias` }
    result.properties.input = orNull(schemaRef(`${w.name}.Input`))
    result.properties.output = { ...orNull(schemaRef(`${w.name}.Output`)), description: 'What the workflow returned; null unless status is completed' }
    schemas[`${w.name}.WorkflowResult`] = result
  }
  schemas.StartWorkflowBody = union(workflows.map((w) => `${w.name}.StartBody`), workflows, withAliases, 'Start one of the catalog\'s workflows; `workflowName` says which')
  schemas.RunWorkflowBody = union(workflows.map((w) => `${w.name}.RunBody`), workflows, withAliases, 'Run one of the catalog\'s workflows; `workflowName` says which')
  schemas.WorkflowResult = union(workflows.map((w) => `${w.name}.WorkflowResult`), workflows, (w) => [w.name],
    'The outcome of a closed run of one of the catalog\'s workflows; `workflowName` says which, and so the type of `input` and `output`')

  for (const kind of ['signal', 'query', 'update'] as const) {
    const byName = new Map<string, Array<{ workflow: CatalogWorkflow, handler: CatalogHandler }>>()
    for (const workflow of workflows) {
      for (const handler of workflow[LIST[kind]]) byName.set(handler.name, [...(byName.get(handler.name) ?? []), { workflow, handler }])
    }
    for (const [name, declared] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
      const path = GENERIC[kind].path.replace(`{${GENERIC[kind].param}}`, encodeURIComponent(name))
      doc.paths[path] = { post: handlerOperation(doc, kind, name, declared) }
    }
  }
  // The catalog's own schemas may hold unions of literals too; the generic bodies and results replaced above are no longer reached.
  plainEnums(doc)
  pruneUnusedComponents(doc)
  return doc
}

/** Keyed by the catalog object, which is new with each publication. */
export function catalogDocuments (get: (catalogId: string, signal?: AbortSignal) => Promise<Catalog>, apiDocument: () => unknown, defaultCatalog: string) {
  const built = new WeakMap<Catalog, OpenApiDocument>()
  return async (catalogId: string, signal?: AbortSignal): Promise<OpenApiDocument> => {
    const catalog = await get(catalogId, signal)
    let doc = built.get(catalog)
    if (doc === undefined) {
      doc = catalogDocument(apiDocument() as Json, catalog, defaultCatalog) as OpenApiDocument
      built.set(catalog, doc)
    }
    return doc
  }
}
