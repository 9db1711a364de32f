import { Type } from '@sinclair/typebox'
import { defineStep, FatalError } from '@flowport/worker'

/** FatalError subclasses are not retried; the failure type is the class name. */
class ExplosionError extends FatalError {}

export const detonate = defineStep({
  name: 'detonate',
  description: 'Always throws ExplosionError with the given message.',
  inputSchema: Type.Object({ message: Type.String() }),
  outputSchema: Type.Object({}, { description: 'never produced' }),
  run: ({ message }) => {
    throw new ExplosionError(message)
  }
})
