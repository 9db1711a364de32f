import { Type } from '@sinclair/typebox'
import { condition, defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { releaseHold } = useSteps<typeof steps>()

const State = Type.Object({
  label: Type.String(),
  approved: Type.Boolean(),
  approvedBy: Type.Union([Type.String(), Type.Null()])
})

export const approval = defineWorkflow({
  name: 'approval',
  description: 'Waits for the `approve` signal; `state` query; `relabel` update; a stop releases the hold.',
  inputSchema: Type.Object({ label: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({ label: Type.String(), approvedBy: Type.String() }),
  signals: {
    approve: { description: 'Approves the request.', payloadSchema: Type.Object({ by: Type.String() }) }
  },
  queries: {
    state: { description: 'Current label and approval.', resultSchema: State }
  },
  updates: {
    relabel: {
      description: 'Changes the label (not to an empty one) and returns the previous label.',
      payloadSchema: Type.Object({ label: Type.String() }),
      resultSchema: Type.Object({ previous: Type.String() })
    }
  },
  async run (input, ctx) {
    let label = input.label
    let approvedBy: string | null = null
    ctx.onSignal('approve', ({ by }) => { approvedBy = by })
    ctx.onQuery('state', () => ({ label, approved: approvedBy !== null, approvedBy }))
    ctx.onUpdate('relabel', (payload) => {
      const previous = label
      label = payload.label
      return { previous }
    }, {
      validator: (payload) => {
        if (payload.label.trim() === '') throw new Error('label must not be empty')
      }
    })
    await condition(() => approvedBy !== null)
    return { label, approvedBy: approvedBy ?? '' }
  },
  async cleanup (ctx) {
    await releaseHold({ label: ctx.input.label })
  }
})
