/**
 * Checks everything discovery loaded and assembles the registry the worker runs: valid and unique
 * names, publishable schemas, valid step options. Any problem stops the worker with a message
 * naming the file (and, for duplicates, both origins).
 */
import { Value } from '@sinclair/typebox/value'
import { CATALOG_WORKFLOW_TYPE, isReserved, NAME_PATTERN, RESERVED_PREFIX, VERSIONING_MODES } from '@flowport/core/contract'
import { StepOptionsSchema } from '../common/step-options.js'
import type { UpdateDeclaration, WorkflowMeta } from '../workflow/types.js'
import { DefinitionError } from './definition-error.js'
import type { Component, Loaded, LoadedSource, LoadedWorkflow, Origin } from './discovery/load.js'
import { CriticalitySchema, InterpretationUnion } from '@flowport/core/eval'
import { schemaProblem } from './schemas.js'

/** A loaded workflow, checked: its meta instead of its definition, and its own steps and evaluators (its `components`). */
export interface RegisteredWorkflow extends Omit<LoadedWorkflow, 'definition' | 'components'> {
  meta: WorkflowMeta
  own: Map<string, Loaded<Component>>
}

export interface Registry {
  workflows: RegisteredWorkflow[]
  /** Shared steps and evaluators (exported by a package entry), callable from every workflow. */
  shared: Map<string, Loaded<Component>>
}

const NAME = new RegExp(NAME_PATTERN)

const where = (file: string, origin: Origin): string => `${file} (${origin.label})`

function checkName (file: string, what: string, name: unknown): void {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new DefinitionError(`${file}: ${what} name ${JSON.stringify(name)} is invalid: names must match ${NAME_PATTERN}`)
  }
  if (isReserved(name) || name === CATALOG_WORKFLOW_TYPE) {
    throw new DefinitionError(`${file}: ${what} name "${name}" is reserved (names starting with ${RESERVED_PREFIX})`)
  }
}

function checkSchema (file: string, what: string, schema: unknown): void {
  const problem = schemaProblem(schema)
  if (problem !== undefined) throw new DefinitionError(`${file}: ${what} ${problem}`)
}

function checkHandlers (file: string, meta: WorkflowMeta): void {
  const groups = { signal: meta.signals, query: meta.queries, update: meta.updates }
  for (const [kind, declared] of Object.entries(groups)) {
    for (const [name, d] of Object.entries(declared as Record<string, UpdateDeclaration>)) {
      checkName(file, `${meta.name}: ${kind}`, name)
      if (d.payloadSchema !== undefined) checkSchema(file, `workflow ${meta.name}: ${kind} ${name}: payloadSchema`, d.payloadSchema)
      if (d.resultSchema !== undefined) checkSchema(file, `workflow ${meta.name}: ${kind} ${name}: resultSchema`, d.resultSchema)
      else if (kind === 'query') throw new DefinitionError(`${file}: workflow ${meta.name}: query ${name} needs a resultSchema`)
    }
  }
}

function checkWorkflow (file: string, meta: WorkflowMeta): void {
  checkName(file, 'workflow', meta.name)
  for (const alias of meta.aliases) checkName(file, `workflow ${meta.name}: alias`, alias)
  if (typeof meta.description !== 'string') throw new DefinitionError(`${file}: workflow ${meta.name}: description must be a string`)
  if (typeof meta.run !== 'function') throw new DefinitionError(`${file}: workflow ${meta.name}: run must be a function`)
  if (meta.versioning !== undefined && !(VERSIONING_MODES as readonly unknown[]).includes(meta.versioning)) {
    throw new DefinitionError(`${file}: workflow ${meta.name}: versioning must be ${VERSIONING_MODES.join(' or ')}, not ${JSON.stringify(meta.versioning)}`)
  }
  if (meta.cleanup !== undefined && typeof meta.cleanup !== 'function') throw new DefinitionError(`${file}: workflow ${meta.name}: cleanup must be a function`)
  checkSchema(file, `workflow ${meta.name}: inputSchema`, meta.inputSchema)
  checkSchema(file, `workflow ${meta.name}: outputSchema`, meta.outputSchema)
  checkHandlers(file, meta)
}

function checkComponent ({ definition: d, file }: Loaded<Component>): void {
  const kind = d.kind === 'flowport.step' ? 'step' : 'evaluator'
  checkName(file, kind, d.name)
  if (typeof d.run !== 'function') throw new DefinitionError(`${file}: ${kind} ${d.name}: run must be a function`)
  checkSchema(file, `${kind} ${d.name}: inputSchema`, d.inputSchema)
  if (d.kind === 'flowport.step') checkSchema(file, `step ${d.name}: outputSchema`, d.outputSchema)
  if (d.options !== undefined && !Value.Check(StepOptionsSchema, d.options)) {
    const first = Value.Errors(StepOptionsSchema, d.options).First()
    throw new DefinitionError(`${file}: ${kind} ${d.name}: invalid options: ${first?.path ?? ''} ${first?.message ?? ''}`.trim())
  }
  if (d.options?.local === true && d.options.heartbeatTimeout !== undefined) {
    // A local activity cannot heartbeat: the SDK would drop the option without a word.
    throw new DefinitionError(`${file}: ${kind} ${d.name}: a local ${kind} cannot have a heartbeatTimeout`)
  }
}

/** An eval judges its own workflow, with evaluators that workflow can call, read in a known way. */
function checkEval (workflow: RegisteredWorkflow, shared: Map<string, Loaded<Component>>): void {
  if (workflow.eval === undefined) return
  const { definition: e, file } = workflow.eval
  if (e.workflow !== workflow.meta.name) throw new DefinitionError(`${file}: the eval beside workflow ${workflow.meta.name} judges workflow "${e.workflow}"; an eval lives beside its own workflow`)
  if (e.evaluators.length === 0) throw new DefinitionError(`${file}: the eval of ${workflow.meta.name} has no evaluators`)
  for (const entry of e.evaluators) {
    const component = workflow.own.get(entry.evaluator) ?? shared.get(entry.evaluator)
    if (component?.definition.kind !== 'flowport.evaluator') {
      throw new DefinitionError(`${file}: the eval of ${workflow.meta.name} names "${entry.evaluator}", which is not an evaluator of that workflow (its evaluators module, or a shared one)`)
    }
    if (!Value.Check(CriticalitySchema, entry.criticality)) throw new DefinitionError(`${file}: evaluator ${entry.evaluator}: criticality must be required or informational`)
    if (!Value.Check(InterpretationUnion, entry.interpret)) {
      throw new DefinitionError(`${file}: evaluator ${entry.evaluator}: interpret must be {type: 'boolean'}, {type: 'verdict'}, {type: 'number', pass, partial?} or {type: 'string', pass: [...], partial?: [...]}`)
    }
  }
}

export function buildRegistry (sources: LoadedSource[], warn: (message: string) => void): Registry {
  // Keyed case-insensitively: Temporal would accept `hello` and `Hello` side by side, but API and
  // CLI users would not tell them apart.
  const owners = new Map<string, { name: string, workflow: RegisteredWorkflow }>()
  const workflows: RegisteredWorkflow[] = []
  const shared = new Map<string, Loaded<Component>>()

  for (const source of sources) {
    for (const loaded of source.workflows) {
      const meta = loaded.definition.definition
      checkWorkflow(loaded.file, meta)
      const registered: RegisteredWorkflow = { meta, file: loaded.file, exportName: loaded.exportName, origin: loaded.origin, own: loaded.components, eval: loaded.eval }
      for (const name of [meta.name, ...meta.aliases]) {
        const owner = owners.get(name.toLowerCase())
        if (owner !== undefined) {
          const same = owner.name === name ? `"${name}"` : `"${owner.name}" / "${name}" (names are compared ignoring case)`
          throw new DefinitionError(`Workflow name ${same} is registered twice: by ${where(owner.workflow.file, owner.workflow.origin)} and by ${where(loaded.file, loaded.origin)}`)
        }
        owners.set(name.toLowerCase(), { name, workflow: registered })
      }
      for (const component of loaded.components.values()) checkComponent(component)
      workflows.push(registered)
    }
    for (const component of source.shared) {
      checkComponent(component)
      const name = component.definition.name
      const earlier = shared.get(name)
      if (earlier !== undefined) {
        warn(`Shared step/evaluator "${name}" of ${where(component.file, component.origin)} replaces the one of ${where(earlier.file, earlier.origin)}`)
      }
      shared.set(name, component)
    }
  }
  // After every source: an eval may use a shared evaluator of a later source.
  for (const workflow of workflows) checkEval(workflow, shared)
  workflows.sort((a, b) => a.meta.name.localeCompare(b.meta.name))
  return { workflows, shared }
}
