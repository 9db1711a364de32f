import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { detonate } = useSteps<typeof steps>()

export const explode = defineWorkflow({
  name: 'explode',
  description: 'Fails: its step throws a non-retryable ExplosionError carrying the input message.',
  inputSchema: Type.Object({ message: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({}, { description: 'never produced: the run always fails' }),
  async run ({ message }) {
    return await detonate({ message })
  }
})
