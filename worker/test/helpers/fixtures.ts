/** Fixture projects: a temp dir whose node_modules links to packages under test/fixtures/packages. */
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'

export const fixture = (path: string): string => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url))

/** A project dir with `node_modules/<name>` symlinked to each given fixture package. */
export function projectWith (t: Test, packages: Record<string, string>): string {
  const nodeModules: Record<string, any> = {}
  for (const [name, dir] of Object.entries(packages)) {
    const [scope, bare] = name.startsWith('@') ? name.split('/') as [string, string] : [undefined, name]
    const link = t.fixture('symlink', fixture(`packages/${dir}`))
    if (scope === undefined) nodeModules[bare] = link
    else nodeModules[scope] = { ...nodeModules[scope], [bare]: link }
  }
  return t.testdir({ node_modules: nodeModules })
}
