import { Type } from '@sinclair/typebox'
import { defineWorkflow } from '@flowport/worker/workflow'

export const relay = defineWorkflow({
  name: 'relay',
  description: 'Continues as new with hops - 1 until hops is 0, then returns {hops: 0}.',
  inputSchema: Type.Object({ hops: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  outputSchema: Type.Object({ hops: Type.Literal(0) }),
  async run ({ hops }, ctx) {
    if (hops > 0) return await ctx.continueAsNew({ hops: hops - 1 })
    return { hops: 0 as const }
  }
})
