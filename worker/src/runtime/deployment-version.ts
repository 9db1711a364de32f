/**
 * The worker deployment version a worker polls as (README, "Changing workflows safely"): the
 * deployment is the catalog unless named, the build id the workflow bundle's content hash unless
 * given, so that restarting or scaling out identical code joins the same version, and changed
 * workflow code is a new one.
 */
import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import type { WorkerDeploymentVersion } from '@temporalio/common'
import { ENTRY_DIR_PREFIX } from './bundle.js'

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
 * in the bundle, by path. The bundle's own text cannot be hashed as it is: webpack writes the
 * checkout's absolute path (into import variable names, in the inline source map) and the fresh
 * temp dir the entry is written to (`flowport-bundle-XXXXXX`) into it, so it differs on every
 * build and in every checkout. The inline source map lists each module's path and source; the
 * paths are taken relative to the project root (`<root>/…`) and to the entry's temp dir
 * (`<entry>/…`), and so are the paths the generated entry names. Identical code in two checkouts
 * gets the same id; a change to any module, the SDK's and Flowport's own included, is a new id.
 */
export function defaultBuildId (code: string, root = process.cwd()): string {
  const hash = createHash('sha256')
  const modules = sourcesOf(code)
  if (modules === null) return hash.update(code).digest('hex').slice(0, 12)
  const entryDir = modules.map(([path]) => entryDirOf(path)).find((dir) => dir !== null) ?? null
  const rootDir = realpathSync(root)
  const relative = (text: string) => (entryDir === null ? text : text.replaceAll(entryDir, '<entry>')).replaceAll(rootDir, '<root>')
  const identity = modules.map(([path, source]) => [relative(path), relative(source)]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return hash.update(JSON.stringify(identity)).digest('hex').slice(0, 12)
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
