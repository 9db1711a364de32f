/**
 * Follows the static ESM re-exports of an entry module down to the modules that create each
 * exported value. Only syntax is read; a module is imported later, and only if it is reached here.
 */
import { DefinitionError } from '../definition-error.js'
import { readModuleExports, type ModuleExports } from './module-exports.js'
import { isRelative, resolveRelative } from './resolve.js'

/** Where an exported value is created: the module file and its export name there. */
export interface Binding {
  file: string
  name: string
}

export function followExports (entry: string, warn: (message: string) => void): Binding[] {
  const tables = new Map<string, ModuleExports>()

  function table (file: string): ModuleExports {
    let t = tables.get(file)
    if (t === undefined) {
      t = readModuleExports(file)
      tables.set(file, t)
      for (const what of new Set(t.unfollowed)) warn(`${file}: ${what} is not followed; export workflows with static re-exports`)
    }
    return t
  }

  function target (from: string, specifier: string): string | undefined {
    if (!isRelative(specifier)) {
      warn(`${from}: re-export from '${specifier}' is not followed (another package registers its own workflows when it has the flowport flag)`)
      return undefined
    }
    const file = resolveRelative(from, specifier)
    if (file === undefined) throw new DefinitionError(`${from}: cannot resolve the re-exported module '${specifier}'`)
    return file
  }

  function names (file: string, seen: Set<string>): Set<string> {
    const result = new Set<string>()
    if (seen.has(file)) return result
    seen.add(file)
    const t = table(file)
    for (const name of [...t.local, ...t.reexports.keys()]) result.add(name)
    for (const specifier of t.stars) {
      const next = target(file, specifier)
      if (next === undefined) continue
      for (const name of names(next, seen)) if (name !== 'default') result.add(name)
    }
    return result
  }

  function origin (file: string, name: string, seen: Set<string>): Binding | undefined {
    const key = `${file}\0${name}`
    if (seen.has(key)) return undefined
    seen.add(key)
    const t = table(file)
    if (t.local.has(name)) return { file, name }
    const re = t.reexports.get(name)
    if (re !== undefined) {
      const next = target(file, re.specifier)
      return next === undefined ? undefined : origin(next, re.name, seen)
    }
    if (name === 'default') return undefined
    for (const specifier of t.stars) {
      const next = target(file, specifier)
      const found = next === undefined ? undefined : origin(next, name, seen)
      if (found !== undefined) return found
    }
    return undefined
  }

  const bindings = new Map<string, Binding>()
  for (const name of names(entry, new Set())) {
    const found = origin(entry, name, new Set())
    if (found !== undefined) bindings.set(`${found.file}\0${found.name}`, found)
  }
  return [...bindings.values()]
}
