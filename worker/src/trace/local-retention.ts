/**
 * Local retention (SERVICE_TRACE_LOCAL_RETENTION_MS, docs/traces.md): removes the files under the
 * trace directory last modified before a cutoff (trace documents, attempt records, pending markers,
 * temporary files a crash left), then the directories left empty, so that a long-lived worker does
 * not keep every trace it ever wrote.
 */
import { readdir, rm, rmdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** Removes files modified before `cutoffMs` (epoch ms) under `dir`; returns how many. */
export async function removeLocalFilesOlderThan (dir: string, cutoffMs: number): Promise<number> {
  return await prune(dir, cutoffMs, true)
}

async function prune (dir: string, cutoffMs: number, isRoot: boolean): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return []
    throw err
  })
  let removed = 0
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      removed += await prune(path, cutoffMs, false)
    } else if (entry.isFile()) {
      // A file that vanished meanwhile (renamed over, removed by another worker) has nothing to remove.
      const modified = await stat(path).then((s) => s.mtimeMs, () => null)
      if (modified !== null && modified < cutoffMs) {
        await rm(path, { force: true })
        removed++
      }
    }
  }
  // Only an empty directory goes; one a writer has just put a file in stays (store.ts writeLocal
  // creates its directory again if this removed it between its mkdir and its write).
  if (!isRoot) await rmdir(dir).catch(() => {})
  return removed
}
