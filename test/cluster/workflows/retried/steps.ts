import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

export const failFirst = defineStep({
  name: 'failFirst',
  description: 'Fails its first `failures` attempts with the process id of the worker that ran each, then returns the pid of the one that succeeded.',
  inputSchema: Type.Object({ failures: Type.Integer({ minimum: 0, maximum: 5 }) }),
  outputSchema: Type.Object({ pid: Type.Integer() }),
  options: { retry: { initialInterval: '100ms', backoffCoefficient: 1, maximumAttempts: 10 } },
  run: ({ failures }, { attempt }) => {
    if (attempt <= failures) throw new Error(`attempt ${attempt} failed on pid ${process.pid}`)
    return { pid: process.pid }
  }
})
