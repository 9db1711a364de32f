import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { stage, localStage } = useSteps<typeof steps>()

export const pipeline = defineWorkflow({
  name: 'pipeline',
  description: 'Runs `stages` short steps one after the other, each adding one: as regular steps, or as local steps ' +
    '(`local: true`, the default) that run inside the workflow task without an engine round trip.',
  inputSchema: Type.Object({
    stages: Type.Integer({ minimum: 1, maximum: 100 }),
    local: Type.Optional(Type.Boolean({ default: true })),
    failAttempts: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Failed attempts of each local stage before it succeeds (5 or more: it fails for good)' }))
  }, { additionalProperties: false }),
  outputSchema: Type.Object({ value: Type.Integer() }),
  async run ({ stages, local = true, failAttempts = 0 }) {
    let value = 0
    for (let i = 0; i < stages; i++) {
      ({ value } = local ? await localStage({ value, failAttempts }) : await stage({ value }))
    }
    return { value }
  }
})
