import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

/** A plain Error subclass: retried, unlike FatalError. */
class TransientError extends Error {
  override name = 'TransientError'
}

export const unstable = defineStep({
  name: 'unstable',
  description: 'Fails on its first `failures` attempts, then reports the attempt that succeeded.',
  inputSchema: Type.Object({ failures: Type.Integer({ minimum: 0 }) }),
  outputSchema: Type.Object({ attempts: Type.Integer({ minimum: 1 }) }),
  // Short, flat backoff so that demos and tests do not wait; 10 attempts, so failures ≥ 10 fail the run.
  options: { retry: { initialInterval: '100ms', backoffCoefficient: 1, maximumAttempts: 10 } },
  run: ({ failures }, { attempt }) => {
    if (attempt <= failures) throw new TransientError(`Attempt ${attempt} of ${failures + 1} fails on purpose`)
    return { attempts: attempt }
  }
})
