/**
 * Modules the workflow bundle evaluates once per worker thread and shares between runs (the SDK's
 * `preloadModules`; worker/src/runtime/bundle.ts), where every other module is evaluated again for
 * each run. Only libraries without per-run state belong here: TypeBox's type builders and its
 * error iterator (its format and type registries are filled the same way by every run).
 */
import * as errors from '@sinclair/typebox/errors'
import * as typebox from '@sinclair/typebox'

// Exported so that the bundler keeps every module of both, whichever parts workflow code imports.
export const sharedModules = [typebox, errors]
