import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

export const tick = defineStep({
  name: 'tick',
  description: 'One tick; returns its index.',
  inputSchema: Type.Object({ index: Type.Integer({ minimum: 1 }) }),
  outputSchema: Type.Object({ index: Type.Integer({ minimum: 1 }) }),
  run: ({ index }) => ({ index })
})
