import type { Logger } from '../../src/common/logger.js'

/** A logger that keeps warnings and errors for assertions and prints nothing. */
export function recordingLogger (): Logger & { warnings: string[], errors: string[] } {
  const warnings: string[] = []
  const errors: string[] = []
  return {
    warnings,
    errors,
    debug: () => {},
    info: () => {},
    warn: (message) => { warnings.push(message) },
    error: (message) => { errors.push(message) }
  }
}
