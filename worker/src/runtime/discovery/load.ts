/**
 * Imports the modules discovery reached (in plain Node: workflow files only build definitions at
 * import time) and sorts their exports into workflows and shared steps/evaluators. A workflow's own
 * steps and evaluators live next to its file, in `steps.<ext>` and `evaluators.<ext>`, and so does
 * its eval, in `eval.<ext>` (its datasets in `datasets/`).
 */
import { existsSync } from 'node:fs'
import { dirname, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isEvaluator, isStep, type EvaluatorDefinition, type StepDefinition } from '../../common/step.js'
import { isEval, type EvalDefinition } from '../../common/eval.js'
import { isWorkflow } from '../../workflow/define.js'
import type { WorkflowDefinition } from '../../workflow/types.js'
import { DefinitionError } from '../definition-error.js'
import { followExports } from './follow.js'

/** Where definitions come from: a package, or the project's local workflows folder. */
export interface Origin {
  package: string
  version: string | null
  /** For messages: "package @acme/flows" or "local workflows". */
  label: string
}

export interface Loaded<D> {
  definition: D
  file: string
  exportName: string
  origin: Origin
}

export type Component = StepDefinition | EvaluatorDefinition

export interface LoadedWorkflow extends Loaded<WorkflowDefinition> {
  /** Steps and evaluators of the modules next to the workflow file, by name. */
  components: Map<string, Loaded<Component>>
  /** The eval of the `eval` module next to the workflow file, if there is one. */
  eval: Loaded<EvalDefinition> | undefined
}

export interface LoadedSource {
  workflows: LoadedWorkflow[]
  shared: Array<Loaded<Component>>
}

const modules = new Map<string, Promise<Record<string, unknown>>>()

async function importFile (file: string): Promise<Record<string, unknown>> {
  let mod = modules.get(file)
  if (mod === undefined) {
    mod = import(pathToFileURL(file).href).catch((err: unknown) => {
      throw new DefinitionError(`${file}: failed to load: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
    }) as Promise<Record<string, unknown>>
    modules.set(file, mod)
  }
  return await mod
}

/** A plain object or array holding definitions: built at run time, so its members are not registered. */
function holdsDefinitions (value: unknown): boolean {
  if (typeof value !== 'object' || value === null || isStep(value) || isEvaluator(value)) return false
  return Object.values(value).some((v) => isWorkflow(v) || isStep(v) || isEvaluator(v))
}

function siblingModule (workflowFile: string, stem: string): string | undefined {
  const ts = /\.[mc]?tsx?$/.test(workflowFile)
  const extensions = ts ? ['.ts', '.mts', '.js', '.mjs'] : ['.js', '.mjs']
  return extensions.map((e) => join(dirname(workflowFile), stem + e)).find(existsSync)
}

async function loadComponents (file: string, kind: 'step' | 'evaluator', origin: Origin): Promise<Array<Loaded<Component>>> {
  const mod = await importFile(file)
  const found: Array<Loaded<Component>> = []
  for (const [key, value] of Object.entries(mod)) {
    const component = kind === 'step' ? (isStep(value) ? value : undefined) : (isEvaluator(value) ? value : undefined)
    if (component === undefined) throw new DefinitionError(`${file}: export "${key}" is not ${kind === 'step' ? 'a step (defineStep)' : 'an evaluator (defineEvaluator)'}; a ${kind}s module exports only ${kind}s`)
    // Workflow code calls `<key>` and the activity is named after the definition: they must agree.
    if (component.name !== key) throw new DefinitionError(`${file}: export "${key}" defines the ${kind} "${component.name}"; export it under its own name`)
    found.push({ definition: component, file, exportName: key, origin })
  }
  return found
}

const siblingCache = new Map<string, Promise<Map<string, Loaded<Component>>>>()

async function loadSiblings (workflowFile: string, origin: Origin): Promise<Map<string, Loaded<Component>>> {
  const dir = dirname(workflowFile)
  const key = `${dir}\0${extname(workflowFile)}`
  let cached = siblingCache.get(key)
  if (cached === undefined) {
    cached = (async () => {
      const components = new Map<string, Loaded<Component>>()
      for (const [stem, kind] of [['steps', 'step'], ['evaluators', 'evaluator']] as const) {
        const file = siblingModule(workflowFile, stem)
        if (file === undefined || file === workflowFile) continue
        for (const loaded of await loadComponents(file, kind, origin)) {
          const clash = components.get(loaded.definition.name)
          if (clash !== undefined) throw new DefinitionError(`"${loaded.definition.name}" is defined in both ${clash.file} and ${file}; step and evaluator names of a workflow must differ`)
          components.set(loaded.definition.name, loaded)
        }
      }
      return components
    })()
    siblingCache.set(key, cached)
  }
  return await cached
}

async function loadEval (workflowFile: string, origin: Origin): Promise<Loaded<EvalDefinition> | undefined> {
  const file = siblingModule(workflowFile, 'eval')
  if (file === undefined || file === workflowFile) return undefined
  const entries = Object.entries(await importFile(file))
  const [key, value] = entries[0] ?? []
  if (entries.length !== 1 || key === undefined || !isEval(value)) {
    throw new DefinitionError(`${file}: an eval module exports exactly one eval (defineEval), found ${entries.length === 0 ? 'nothing' : entries.map(([k]) => `"${k}"`).join(', ')}`)
  }
  return { definition: value, file, exportName: key, origin }
}

/** Loads one source: its entry's static exports, then each workflow's sibling step modules. */
export async function loadSource (entry: string, origin: Origin, warn: (message: string) => void): Promise<LoadedSource> {
  const result: LoadedSource = { workflows: [], shared: [] }
  const seen = new Set<unknown>()
  for (const binding of followExports(entry, warn)) {
    const value = (await importFile(binding.file))[binding.name]
    if (seen.has(value)) continue
    seen.add(value)
    if (isWorkflow(value)) {
      result.workflows.push({ definition: value, file: binding.file, exportName: binding.name, origin, components: await loadSiblings(binding.file, origin), eval: await loadEval(binding.file, origin) })
    } else if (isStep(value) || isEvaluator(value)) {
      result.shared.push({ definition: value, file: binding.file, exportName: binding.name, origin })
    } else if (holdsDefinitions(value)) {
      warn(`${binding.file}: export "${binding.name}" is assembled at run time and is not followed; export each workflow by name`)
    }
  }
  return result
}
