import { Type } from '@sinclair/typebox'
import { defineWorkflow, sleep, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { tick } = useSteps<typeof steps>()

export const sleepy = defineWorkflow({
  name: 'sleepy',
  description: 'Runs `steps` tick steps with a durable timer of `delayMs` between them (none when 0).',
  inputSchema: Type.Object({
    steps: Type.Integer({ minimum: 1, maximum: 100 }),
    delayMs: Type.Integer({ minimum: 0 })
  }, { additionalProperties: false }),
  outputSchema: Type.Object({ ticks: Type.Integer({ minimum: 1 }) }),
  async run ({ steps, delayMs }) {
    let ticks = 0
    for (let index = 1; index <= steps; index++) {
      // A zero-length timer would still cost a history event and a round trip.
      if (index > 1 && delayMs > 0) await sleep(delayMs)
      await tick({ index })
      ticks++
    }
    return { ticks }
  }
})
