import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { unstable } = useSteps<typeof steps>()

export const flaky = defineWorkflow({
  name: 'flaky',
  description: 'Retries a step that fails `failures` times (at most 10 attempts), then returns the attempt count.',
  inputSchema: Type.Object({ failures: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  outputSchema: Type.Object({ attempts: Type.Integer({ minimum: 1 }) }),
  async run ({ failures }) {
    return await unstable({ failures })
  }
})
