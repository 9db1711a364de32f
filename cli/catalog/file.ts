/**
 * A catalog file (docs/any-worker.md): a catalog declared in YAML or JSON for workers written
 * without Flowport's SDK (Python, Go, Java…). Read into the same Catalog a Flowport worker
 * publishes, once every schema compiles with the API's validator and every name is unique; each
 * problem names its line and column.
 */
import { createHash } from 'node:crypto'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Ajv } from 'ajv'
import { isMap, isNode, LineCounter, parseDocument, type Document, type Node } from 'yaml'
import { NAME_PATTERN, type Catalog, type CatalogHandler, type CatalogWorkflow } from '@flowport/core/contract'
import { CatalogIdSchema } from '../../schemas/catalog.js'
import { schemaProblem } from '../../lib/json-schema.js'

const Name = Type.String({ pattern: NAME_PATTERN })
const TemporalName = Type.String({ minLength: 1, maxLength: 1000 })
const Description = Type.Optional(Type.String())
const JsonSchema = Type.Record(Type.String(), Type.Unknown())

const HandlerSchema = (result: boolean) => Type.Object({
  name: Name,
  handlerName: Type.Optional(TemporalName),
  description: Description,
  payloadSchema: Type.Optional(JsonSchema),
  ...(result ? { resultSchema: Type.Optional(JsonSchema) } : {})
}, { additionalProperties: false })

const ActivitySchema = Type.Union([TemporalName, Type.Object({ name: TemporalName, description: Description }, { additionalProperties: false })])

const WorkflowSchema = Type.Object({
  name: Name,
  workflowType: Type.Optional(TemporalName),
  description: Description,
  aliases: Type.Optional(Type.Array(Name)),
  inputSchema: Type.Optional(JsonSchema),
  outputSchema: Type.Optional(JsonSchema),
  signals: Type.Optional(Type.Array(HandlerSchema(false))),
  queries: Type.Optional(Type.Array(HandlerSchema(true))),
  updates: Type.Optional(Type.Array(HandlerSchema(true))),
  activities: Type.Optional(Type.Array(ActivitySchema))
}, { additionalProperties: false })

/** The file as written; absent schemas accept any value, absent lists are empty. */
export const CatalogFileSchema = Type.Object({
  catalog: Type.String({ ...CatalogIdSchema, pattern: '^(?!__flowport)[^\\x00-\\x1f\\x7f]+$', description: 'Catalog id: the task queue its workers poll' }),
  workflows: Type.Array(WorkflowSchema, { minItems: 1 })
}, { additionalProperties: false })
export type CatalogFile = Static<typeof CatalogFileSchema>

export class CatalogFileError extends Error {
  constructor (readonly problems: string[]) {
    super(problems.join('\n'))
  }
}

type Path = Array<string | number>

/** Where a path of the document starts: the node itself, else the nearest ancestor that exists. */
function lineOf (doc: Document, lines: LineCounter, path: Path, key?: string): string {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true)
    if (!isNode(node)) continue
    // An unexpected property: its key's own line.
    const pair = depth === path.length && key !== undefined && isMap(node) ? node.items.find((p) => isNode(p.key) && (p.key as Node & { value?: unknown }).value === key) : undefined
    const at = (isNode(pair?.key) ? pair.key : node).range?.[0]
    if (at === undefined) continue
    const { line, col } = lines.linePos(at)
    return `${line}:${col}`
  }
  return '1:1'
}

const fileChecker = new Ajv({ allErrors: true, strict: false }).compile(CatalogFileSchema as TSchema)

/**
 * The catalog `text` declares (YAML, or JSON, which is YAML too) and its hash, or a
 * CatalogFileError with one `file:line:col: problem` per problem.
 */
export function readCatalogFile (text: string, file: string): { catalog: Catalog, hash: string } {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  if (doc.errors.length > 0) {
    throw new CatalogFileError(doc.errors.map((e) => `${file}:${e.linePos?.[0].line ?? 1}:${e.linePos?.[0].col ?? 1}: ${e.message.split('\n')[0]}`))
  }
  const value: unknown = doc.toJS()
  const at = (path: Path, key?: string) => lineOf(doc, lines, path, key)
  const problem = (path: Path, message: string, key?: string) => `${file}:${at(path, key)}: ${[...path, ...(key === undefined ? [] : [key])].join('.') || '(file)'} ${message}`
  if (!fileChecker(value)) {
    throw new CatalogFileError((fileChecker.errors ?? []).map((e) => {
      const path = e.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')))
      const params = e.params as { additionalProperty?: string, missingProperty?: string }
      if (params.additionalProperty !== undefined) return problem(path, 'is not a field of a catalog file', params.additionalProperty)
      const message = e.message ?? 'is invalid'
      return problem(path, e.keyword === 'pattern' && path.at(-1) === 'name' ? `${message}${unsafeName(path)}` : message)
    }))
  }
  const declared = value as CatalogFile
  const problems = [...schemaProblems(declared, problem), ...duplicates(declared, problem, at)]
  if (problems.length > 0) throw new CatalogFileError(problems)
  const workflows = declared.workflows.map(catalogWorkflow)
  const hash = createHash('sha256').update(JSON.stringify({ catalog: declared.catalog, workflows })).digest('hex')
  return { catalog: { catalog: declared.catalog, publishedAt: new Date().toISOString(), deployment: null, workflows, declared: true }, hash }
}

/** A name the API's paths cannot carry: where the worker's own name goes instead. */
function unsafeName (path: Path): string {
  const field = path.length === 3 ? 'workflowType' : 'handlerName'
  return ` (the API's paths carry letters, digits and _ only): give clients such a name, and the worker's own in ${field}`
}

type Problem = (path: Path, message: string, key?: string) => string
const HANDLER_KINDS = ['signals', 'queries', 'updates'] as const

/** Every schema compiles with the API's validator (a start would otherwise fail on it). */
function schemaProblems (declared: CatalogFile, problem: Problem): string[] {
  const check = (schema: unknown, path: Path) => {
    if (schema === undefined) return []
    const why = schemaProblem(schema)
    return why === null ? [] : [problem(path, `is not a JSON Schema the API can compile: ${why}`)]
  }
  return declared.workflows.flatMap((w, i) => [
    ...check(w.inputSchema, ['workflows', i, 'inputSchema']),
    ...check(w.outputSchema, ['workflows', i, 'outputSchema']),
    ...HANDLER_KINDS.flatMap((kind) => (w[kind] ?? []).flatMap((h, j) => [
      ...check(h.payloadSchema, ['workflows', i, kind, j, 'payloadSchema']),
      ...check('resultSchema' in h ? h.resultSchema : undefined, ['workflows', i, kind, j, 'resultSchema'])
    ]))
  ])
}

/** A name used twice: the second use, naming the first's line. */
function duplicates (declared: CatalogFile, problem: Problem, at: (path: Path) => string): string[] {
  const problems: string[] = []
  const unique = (what: string, entries: Array<{ value: string, path: Path }>) => {
    const seen = new Map<string, Path>()
    for (const { value, path } of entries) {
      const first = seen.get(value)
      if (first === undefined) seen.set(value, path)
      else problems.push(problem(path, `repeats ${what} ${value} (line ${at(first).split(':')[0]})`))
    }
  }
  unique('name', declared.workflows.flatMap((w, i) => [
    { value: w.name, path: ['workflows', i, 'name'] },
    ...(w.aliases ?? []).map((a, j) => ({ value: a, path: ['workflows', i, 'aliases', j] }))
  ]))
  // A run's workflow type says which entry it is: two entries of one type could not be told apart.
  unique('workflow type', declared.workflows.map((w, i) => ({ value: w.workflowType ?? w.name, path: ['workflows', i, w.workflowType === undefined ? 'name' : 'workflowType'] })))
  declared.workflows.forEach((w, i) => {
    for (const kind of HANDLER_KINDS) {
      const what = kind.replace(/s$/, '').replace(/ie$/, 'y')
      unique(what, (w[kind] ?? []).map((h, j) => ({ value: h.name, path: ['workflows', i, kind, j, 'name'] })))
      // Two names for one handler of the worker would be one handler under two paths.
      const named = (w[kind] ?? []).map((h, j) => ({ h, j })).filter(({ h }, k, all) => all.findIndex((o) => o.h.name === h.name) === k)
      unique(`${what} handler name`, named.map(({ h, j }) => ({ value: h.handlerName ?? h.name, path: ['workflows', i, kind, j, h.handlerName === undefined ? 'name' : 'handlerName'] })))
    }
    unique('activity', (w.activities ?? []).map((a, j) => ({ value: typeof a === 'string' ? a : a.name, path: ['workflows', i, 'activities', j] })))
  })
  return problems
}

function catalogWorkflow (w: CatalogFile['workflows'][number]): CatalogWorkflow {
  const handler = (h: { name: string, handlerName?: string, description?: string, payloadSchema?: Record<string, unknown>, resultSchema?: Record<string, unknown> }, result: boolean): CatalogHandler => ({
    name: h.name,
    description: h.description ?? null,
    payloadSchema: h.payloadSchema ?? null,
    resultSchema: result ? (h.resultSchema ?? {}) : null,
    ...(h.handlerName === undefined || h.handlerName === h.name ? {} : { handlerName: h.handlerName })
  })
  return {
    name: w.name,
    description: w.description ?? '',
    aliases: w.aliases ?? [],
    inputSchema: w.inputSchema ?? {},
    outputSchema: w.outputSchema ?? {},
    // The activities are the steps the history shows; their values are whatever the worker sends.
    steps: (w.activities ?? []).map((a) => typeof a === 'string' ? { name: a, description: null } : { name: a.name, description: a.description ?? null })
      .map((a) => ({ ...a, inputSchema: {}, outputSchema: {} })),
    evaluators: [],
    signals: (w.signals ?? []).map((h) => handler(h, false)),
    queries: (w.queries ?? []).map((h) => handler(h, true)),
    updates: (w.updates ?? []).map((h) => handler(h, true)),
    source: { package: 'catalog file', version: null },
    ...(w.workflowType === undefined || w.workflowType === w.name ? {} : { workflowType: w.workflowType })
  }
}
