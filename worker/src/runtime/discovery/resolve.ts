/**
 * File resolution for discovery: relative module specifiers (TypeScript sources written with
 * `.js` specifiers included) and package entry points from `package.json` exports.
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, extname, join, resolve } from 'node:path'

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile()

/** Sources first when the importer is a TypeScript file, compiled files first otherwise. */
function candidates (base: string, preferTs: boolean): string[] {
  const ext = extname(base)
  const stem = base.slice(0, base.length - ext.length)
  const pairs: Record<string, [string[], string[]]> = {
    '.js': [['.ts', '.tsx'], ['.js']],
    '.mjs': [['.mts'], ['.mjs']],
    '.cjs': [['.cts'], ['.cjs']]
  }
  const pair = pairs[ext]
  if (pair !== undefined) {
    const [ts, js] = pair
    return (preferTs ? [...ts, ...js] : [...js, ...ts]).map((e) => stem + e)
  }
  if (ext !== '' && ext !== '.') return [base]
  const bare = preferTs ? ['.ts', '.mts', '.js', '.mjs'] : ['.js', '.mjs', '.ts', '.mts']
  return [...bare.map((e) => base + e), ...bare.map((e) => join(base, 'index' + e))]
}

export function resolveRelative (fromFile: string, specifier: string): string | undefined {
  const preferTs = /\.[mc]?tsx?$/.test(fromFile)
  return candidates(resolve(dirname(fromFile), specifier), preferTs).find(isFile)
}

export function isRelative (specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../')
}

type ExportsField = string | null | ExportsField[] | { [key: string]: ExportsField }

/** Node's conditional-exports rule: the first key (in the object's order) that is an active condition. */
function pickTarget (value: ExportsField | undefined, conditions: Set<string>): string | undefined {
  if (typeof value === 'string') return value
  if (value === null || value === undefined) return undefined
  // An array lists fallbacks in order; an object's active conditions are tried in its order.
  const choices = Array.isArray(value) ? value : Object.entries(value).filter(([key]) => conditions.has(key)).map(([, v]) => v)
  for (const choice of choices) {
    const target = pickTarget(choice, conditions)
    if (target !== undefined) return target
  }
  return undefined
}

export interface PackageJson {
  name?: string
  version?: string
  exports?: ExportsField
  module?: string
  main?: string
  flowport?: { workflows?: unknown, onError?: unknown }
}

export function resolvePackageEntry (root: string, pkg: PackageJson, conditions: Set<string>): string | undefined {
  let target: string | undefined
  if (pkg.exports !== undefined) {
    const exp = pkg.exports
    const subpaths = typeof exp === 'object' && exp !== null && !Array.isArray(exp) && Object.keys(exp).some((k) => k.startsWith('.'))
    target = pickTarget(subpaths ? (exp as Record<string, ExportsField>)['.'] : exp, conditions)
  } else {
    target = pkg.module ?? pkg.main ?? 'index.js'
  }
  if (target === undefined) return undefined
  const file = resolve(root, target)
  return isFile(file) ? file : candidates(file, false).find(isFile)
}
