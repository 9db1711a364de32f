import { Type } from '@sinclair/typebox'
import { defineWorkflow } from '@flowport/worker/workflow'

/** Returns its input: a large one comes back as large, held by reference in the store. */
export const echo = defineWorkflow({
  name: 'echo',
  description: 'Test fixture: returns its input `{text}` unchanged.',
  inputSchema: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({ text: Type.String() }),
  run: async (input) => input
})
