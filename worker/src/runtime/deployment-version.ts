/**
 * The worker deployment version a worker polls as (docs/versioning.md): the
 * deployment is the catalog unless named, the build id the workflow bundle's content hash unless
 * given, so that restarting or scaling out identical code joins the same version, and changed
 * workflow code is a new one.
 */
import { createHash } from 'node:crypto'
import { dirname, isAbsolute } from 'node:path'
import type { WorkerDeploymentVersion } from '@temporalio/common'
import { ENTRY_DIR_PREFIX } from './bundle.js'
import { nearestPackage } from './discovery/packages.js'

export function deploymentVersion (
  options: { catalogId: string, versioning?: { deploymentName?: string, buildId?: string } | null },
  workflowBundle: { code: string }
): WorkerDeploymentVersion | null {
  if (options.versioning == null) return null
  return {
    deploymentName: options.versioning.deploymentName ?? options.catalogId,
    buildId: options.versioning.buildId ?? defaultBuildId(workflowBundle.code)
  }
}

/**
 * The first 12 hex digits of the SHA-256 of what identifies the code: the source of every module
 * in the bundle, by path. The bundle's own text cannot be hashed as it is: webpack writes absolute
 * paths (into import variable names, in the inline source map) and the fresh temp dir the entry is
 * written to (`flowport-bundle-XXXXXX`) into it, so it differs on every build and in every folder.
 * The inline source map lists each module's path and source; in both, each package's folder is
 * replaced by the package's `name@version` (the nearest package.json) and the entry's temp dir by
 * `<entry>`. So the id depends on the code and the packages' versions only: not on the folder the
 * worker starts from, nor on where the project is checked out; a change to any module, the SDK's
 * and Flowport's own included, is a new id.
 */
export function defaultBuildId (code: string): string {
  const hash = createHash('sha256')
  const modules = sourcesOf(code)
  if (modules === null) return hash.update(code).digest('hex').slice(0, 12)
  const entryDir = modules.map(([path]) => entryDirOf(path)).find((dir) => dir !== null) ?? null
  // Longest first, so that a package inside another's folder (node_modules) is named as itself.
  const packages = [...new Map(modules.flatMap(([path]) => packageOf(path) ?? []).map((p) => [p.root, p.label])).entries()]
    .sort(([a], [b]) => b.length - a.length)
  const relative = (text: string) => packages.reduce((out, [root, label]) => out.replaceAll(`${root}/`, `${label}/`),
    entryDir === null ? text : text.replaceAll(entryDir, '<entry>'))
  const identity = modules.map(([path, source]) => [relative(path), relative(source)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return hash.update(JSON.stringify(identity)).digest('hex').slice(0, 12)
}

/** The folder of the package a module file belongs to and its `name@version`; none for a path that is not a file's. */
function packageOf (path: string): { root: string, label: string } | null {
  // A package.json without a name marks a folder's module format only (e.g. "type": "module").
  const found = isAbsolute(path) ? nearestPackage(dirname(path), (pkg) => pkg.name !== undefined) : undefined
  return found === undefined ? null : { root: found.root, label: `${found.pkg.name}@${found.pkg.version ?? ''}` }
}

const SOURCE_MAP = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,'

/** [path, source] of every module, from the bundle's inline source map; null without one. */
function sourcesOf (code: string): Array<[string, string]> | null {
  const at = code.lastIndexOf(SOURCE_MAP)
  if (at < 0) return null
  const map = JSON.parse(Buffer.from(code.slice(at + SOURCE_MAP.length).trim(), 'base64').toString('utf8')) as { sources?: string[], sourcesContent?: Array<string | null> }
  return (map.sources ?? []).map((path, i) => [path, map.sourcesContent?.[i] ?? ''])
}

/** The temp dir of the generated entry, when `path` is in it. */
function entryDirOf (path: string): string | null {
  const at = path.indexOf(ENTRY_DIR_PREFIX)
  if (at < 0) return null
  const end = path.indexOf('/', at)
  return end < 0 ? null : path.slice(0, end)
}
