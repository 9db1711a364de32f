/**
 * The `onError` hooks of workflow packages: `"flowport": {"workflows": true, "onError": "./on-error"}`
 * names a module by a subpath of the package's `exports` (resolved with the worker's conditions, so
 * sources under `flowport-source`, compiled files otherwise) or, for a package without `exports`,
 * by a path relative to its root. The module exports the hook as `onError`.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ErrorHook } from '../../common/error-hook.js'
import { DefinitionError } from '../definition-error.js'
import type { FoundPackage } from './packages.js'
import { resolvePackageEntry } from './resolve.js'

export interface LoadedErrorHook {
  /** The package that registered it. */
  package: string
  file: string
  hook: ErrorHook
}

export async function loadErrorHooks (packages: FoundPackage[], conditions: Set<string>): Promise<LoadedErrorHook[]> {
  const hooks: LoadedErrorHook[] = []
  for (const { root, pkg, name } of packages) {
    const flag = pkg.flowport?.onError
    if (flag === undefined) continue
    const where = join(root, 'package.json')
    if (typeof flag !== 'string' || !flag.startsWith('./')) {
      throw new DefinitionError(`${where}: flowport.onError must be a subpath such as "./on-error" (an export of the package, or a file in it)`)
    }
    // The export `flag`, read as if it were the package's entry; a package without exports names the file.
    const exported = typeof pkg.exports === 'object' && pkg.exports !== null && !Array.isArray(pkg.exports) ? pkg.exports[flag] : undefined
    const file = resolvePackageEntry(root, exported === undefined ? { main: flag } : { exports: exported }, conditions)
    if (file === undefined) throw new DefinitionError(`${where}: flowport.onError "${flag}" names no module`)
    const module = await import(pathToFileURL(file).href) as { onError?: unknown }
    if (typeof module.onError !== 'function') throw new DefinitionError(`${file}: the module named by flowport.onError must export a function \`onError\``)
    hooks.push({ package: name, file, hook: module.onError as ErrorHook })
  }
  return hooks
}
