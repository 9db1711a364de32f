import { Type } from '@sinclair/typebox'
import { defineWorkflow, sleep, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { where } = useSteps<typeof steps>()

/** `steps` steps one after the other (`delayMs` apart): which workers ran them. */
export const spread = defineWorkflow({
  name: 'spread',
  description: 'Test fixture: runs `steps` steps, `delayMs` apart, and returns the process id of the worker of each.',
  inputSchema: Type.Object({
    steps: Type.Integer({ minimum: 1, maximum: 200 }),
    delayMs: Type.Integer({ minimum: 0 })
  }, { additionalProperties: false }),
  outputSchema: Type.Object({ pids: Type.Array(Type.Integer()) }),
  async run ({ steps, delayMs }) {
    const pids: number[] = []
    for (let index = 1; index <= steps; index++) {
      if (index > 1 && delayMs > 0) await sleep(delayMs)
      pids.push((await where({ index })).pid)
    }
    return { pids }
  }
})
