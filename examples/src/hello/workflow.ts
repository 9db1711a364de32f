import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
// Type-only: the step implementation stays out of the workflow bundle.
import type * as steps from './steps.js'

const { greet } = useSteps<typeof steps>()

export const hello = defineWorkflow({
  name: 'hello',
  description: 'Greets someone by name: {name} → {greeting: "Hello, <name>!"}.',
  aliases: ['hi'],
  inputSchema: Type.Object({ name: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({ greeting: Type.String() }),
  async run (input) {
    return await greet({ name: input.name })
  }
})
