import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

export const where = defineStep({
  name: 'where',
  description: 'Takes 20 ms (so that parallel steps overlap) and returns the process id of the worker that ran it.',
  inputSchema: Type.Object({ index: Type.Integer({ minimum: 1 }) }),
  outputSchema: Type.Object({ pid: Type.Integer() }),
  // A step on a worker that is SIGKILLed is retried after this timeout, not the default 5 minutes.
  options: { startToCloseTimeout: '3s', retry: { initialInterval: '100ms' } },
  run: async () => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { pid: process.pid }
  }
})
