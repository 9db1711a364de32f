import { Type } from '@sinclair/typebox'
import { defineWorkflow, sleep, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { where } = useSteps<typeof steps>()

/** `steps` steps, one after the other (`delayMs` apart) or all at once: which workers ran them. */
export const spread = defineWorkflow({
  name: 'spread',
  description: 'Test fixture: runs `steps` steps, `delayMs` apart or (`parallel`) all at once, and returns the process id of the worker of each.',
  inputSchema: Type.Object({
    steps: Type.Integer({ minimum: 1, maximum: 200 }),
    delayMs: Type.Integer({ minimum: 0 }),
    parallel: Type.Optional(Type.Boolean())
  }, { additionalProperties: false }),
  outputSchema: Type.Object({ pids: Type.Array(Type.Integer()) }),
  async run ({ steps, delayMs, parallel }) {
    if (parallel === true) return { pids: (await Promise.all(Array.from({ length: steps }, async (_, i) => await where({ index: i + 1 })))).map((r) => r.pid) }
    const pids: number[] = []
    for (let index = 1; index <= steps; index++) {
      if (index > 1 && delayMs > 0) await sleep(delayMs)
      pids.push((await where({ index })).pid)
    }
    return { pids }
  }
})
