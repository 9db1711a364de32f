/**
 * Finds the packages that provide workflows: direct entries of `node_modules` (scoped ones too)
 * whose package.json has `"flowport": {"workflows": true}`. Workspace links are followed.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { PackageJson } from './resolve.js'

export interface FoundPackage {
  name: string
  version: string | null
  /** Real path of the package directory. */
  root: string
  pkg: PackageJson
}

function readPackage (dir: string): PackageJson | undefined {
  const file = join(dir, 'package.json')
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PackageJson
  } catch {
    return undefined // a broken package.json is npm's problem, not a workflow package
  }
}

/** The nearest folder at or above `dir` whose package.json `accept` takes, and that package.json. */
export function nearestPackage (dir: string, accept = (pkg: PackageJson) => true): { root: string, pkg: PackageJson } | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const pkg = readPackage(d)
    if (pkg !== undefined && accept(pkg)) return { root: d, pkg }
    if (dirname(d) === d) return undefined
  }
}

function packageDirs (nodeModules: string): string[] {
  const dirs: string[] = []
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const path = join(nodeModules, entry.name)
    if (entry.name.startsWith('@')) {
      for (const scoped of readdirSync(path, { withFileTypes: true })) dirs.push(join(path, scoped.name))
    } else {
      dirs.push(path)
    }
  }
  return dirs
}

/** Flagged packages, sorted by name so that "later registration wins" is reproducible. */
export function findWorkflowPackages (from: string): FoundPackage[] {
  const nodeModules = join(from, 'node_modules')
  if (!existsSync(nodeModules)) return []
  const found = new Map<string, FoundPackage>()
  for (const dir of packageDirs(nodeModules)) {
    const pkg = readPackage(dir)
    if (pkg?.flowport?.workflows !== true) continue
    const root = realpathSync(dir)
    found.set(root, { name: pkg.name ?? dir, version: pkg.version ?? null, root, pkg })
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name))
}
