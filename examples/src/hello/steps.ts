import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

export const greet = defineStep({
  name: 'greet',
  description: 'Builds the greeting for a name.',
  inputSchema: Type.Object({ name: Type.String() }),
  outputSchema: Type.Object({ greeting: Type.String() }),
  run: ({ name }) => ({ greeting: `Hello, ${name}!` })
})
