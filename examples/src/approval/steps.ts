import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

export const releaseHold = defineStep({
  name: 'releaseHold',
  description: 'Releases whatever the pending approval was holding (runs when the approval is stopped).',
  inputSchema: Type.Object({ label: Type.String() }),
  outputSchema: Type.Object({ released: Type.String() }),
  run: ({ label }) => ({ released: label })
})
