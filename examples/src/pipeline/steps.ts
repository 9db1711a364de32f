import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

const Value = Type.Object({ value: Type.Integer() })
const LocalInput = Type.Object({ value: Type.Integer(), failAttempts: Type.Integer({ minimum: 0 }) })

export const stage = defineStep({
  name: 'stage',
  description: 'Adds one: a regular step, an activity the engine hands to any worker.',
  inputSchema: Value,
  outputSchema: Value,
  run: ({ value }) => ({ value: value + 1 })
})

export const localStage = defineStep({
  name: 'localStage',
  description: 'Adds one as a local step, inside the workflow task; fails its first `failAttempts` attempts.',
  inputSchema: LocalInput,
  outputSchema: Value,
  options: { local: true, startToCloseTimeout: '10s', retry: { initialInterval: '100ms' } },
  run: ({ value, failAttempts }, { attempt }) => {
    if (attempt <= failAttempts) throw new Error(`attempt ${attempt} of localStage fails on purpose`)
    return { value: value + 1 }
  }
})
