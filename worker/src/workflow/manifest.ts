/**
 * The manifest the worker embeds in the generated bundle entry: which canonical workflow each
 * registered type (name or alias) runs, and the activity options of every `<workflow>#<step>`.
 * It is kept on `globalThis` under a registered symbol so that a package bundled with its own
 * copy of this SDK reads the same manifest.
 */
import type { StepOptions } from '../common/step-options.js'

export interface Manifest {
  /** Registered workflow type (canonical name or alias) → canonical name. */
  workflows: Record<string, string>
  /** Activity type `<workflow>#<step>` → resolved options (defaults applied). */
  activities: Record<string, StepOptions>
}

const MANIFEST = Symbol.for('@flowport/worker:manifest')

export function installManifest (manifest: Manifest): void {
  (globalThis as Record<symbol, unknown>)[MANIFEST] = manifest
}

export function currentManifest (): Manifest {
  const manifest = (globalThis as Record<symbol, unknown>)[MANIFEST] as Manifest | undefined
  if (manifest === undefined) {
    throw new Error('Flowport manifest missing: workflows must run in a bundle built by the Flowport worker')
  }
  return manifest
}
