import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { failFirst } = useSteps<typeof steps>()

/** One step retried `failures` times: whichever workers ran its attempts, the trace must hold every one. */
export const retried = defineWorkflow({
  name: 'retried',
  description: 'Test fixture: one step that fails `failures` times (each failure names its worker\'s pid) before it succeeds.',
  inputSchema: Type.Object({ failures: Type.Integer({ minimum: 0, maximum: 5 }) }, { additionalProperties: false }),
  outputSchema: Type.Object({ pid: Type.Integer() }),
  run: async ({ failures }) => await failFirst({ failures })
})
