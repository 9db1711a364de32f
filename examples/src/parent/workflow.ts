import { Type } from '@sinclair/typebox'
import { defineWorkflow } from '@flowport/worker/workflow'
// A workflow (not a step) import: calling it runs `hello` as a child workflow.
import { hello } from '../hello/workflow.js'

export const parent = defineWorkflow({
  name: 'parent',
  description: 'Runs hello as a child workflow and returns its output as {child}.',
  inputSchema: Type.Object({ name: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({ child: hello.definition.outputSchema }),
  async run ({ name }) {
    return { child: await hello({ name }) }
  }
})
