/**
 * Prebuilt workflow bundles (image builds): the bundle file starts with a stamp, the hash of the
 * generated entry it was built from. A worker uses the file only when the workflows it loaded
 * produce the same entry; otherwise it bundles afresh and says why, so a stale file never runs.
 */
import { createHash } from 'node:crypto'
import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker'
import { generateEntry } from './bundle.js'
import type { Manifest } from '../workflow/manifest.js'
import type { Registry } from './registry.js'

const STAMP = '// flowport-entry-sha256:'

/** Hash of the generated entry, with the project root left out so a moved tree still matches. */
export function entryHash (registry: Registry, manifest: Manifest, { root = process.cwd(), tracing = false }: { root?: string, tracing?: boolean } = {}): string {
  const entry = generateEntry(registry, manifest, tracing).replaceAll(realpathSync(root), '<root>')
  return createHash('sha256').update(entry).digest('hex')
}

export function writePrebuiltBundle (path: string, bundle: WorkflowBundleWithSourceMap, hash: string): void {
  writeFileSync(path, `${STAMP} ${hash}\n${bundle.code}`)
}

/** The bundle code when the file matches `hash`, else the reason it cannot be used. */
export function readPrebuiltBundle (path: string, hash: string): { code: string } | { reason: string } {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    return { reason: `cannot read ${path}: ${(err as Error).message}` }
  }
  const firstLine = text.slice(0, text.indexOf('\n'))
  if (!firstLine.startsWith(STAMP)) return { reason: `${path} is not a Flowport prebuilt bundle` }
  if (firstLine.slice(STAMP.length).trim() !== hash) return { reason: `${path} was built from other workflow files` }
  return { code: text.slice(firstLine.length + 1) }
}
