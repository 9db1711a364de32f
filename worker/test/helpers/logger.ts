import type { Logger } from '../../src/common/logger.js'

/** A logger that keeps infos, warnings and errors for assertions and prints nothing. */
export function recordingLogger (): Logger & { infos: string[], warnings: string[], errors: string[] } {
  const infos: string[] = []
  const warnings: string[] = []
  const errors: string[] = []
  return {
    infos,
    warnings,
    errors,
    debug: () => {},
    info: (message) => { infos.push(message) },
    warn: (message) => { warnings.push(message) },
    error: (message) => { errors.push(message) }
  }
}
