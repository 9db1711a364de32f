/**
 * Compile-time checks of the SDK's typing (run by `tsc -p worker`, not by tap): every line marked
 * @ts-expect-error must stay an error, or the type-check fails.
 */
import { Type } from '@sinclair/typebox'
import { defineStep } from '../src/index.js'
import { defineWorkflow, useEvaluators, useSteps } from '../src/workflow/index.js'
import type * as evaluators from './fixtures/catalog-v1/listed/evaluators.js'
import type * as steps from './fixtures/catalog-v1/listed/steps.js'

const { first, second } = useSteps<typeof steps>()
const { judge } = useEvaluators<typeof evaluators>()

export const typed = defineWorkflow({
  name: 'typed',
  description: 'typing',
  inputSchema: Type.Object({ n: Type.Integer() }),
  outputSchema: Type.Object({ n: Type.Integer(), s: Type.String() }),
  signals: { go: { payloadSchema: Type.Object({ by: Type.String() }) }, stop: {} },
  queries: { count: { resultSchema: Type.Integer() } },
  updates: { rename: { payloadSchema: Type.String(), resultSchema: Type.Object({ previous: Type.String() }) } },
  async run (input, ctx) {
    // @ts-expect-error the input is typed by inputSchema
    const wrong: string = input.n
    // @ts-expect-error a step's input is typed by its inputSchema
    await first({ n: 'one' })
    const { n } = await first({ n: input.n })
    // @ts-expect-error a step's output is typed by its outputSchema
    const notString: string = n
    const s: string = await second('text')
    const { score }: { score: number } = await judge({ n })
    // @ts-expect-error steps not exported by the module do not exist
    useSteps<typeof steps>().third({})

    ctx.onSignal('go', ({ by }) => { const who: string = by; void who })
    ctx.onSignal('stop', (payload) => { const none: undefined = payload; void none })
    // @ts-expect-error only declared signals have handlers
    ctx.onSignal('pause', () => {})
    // @ts-expect-error a query returns its resultSchema's type
    ctx.onQuery('count', () => 'many')
    ctx.onUpdate('rename', (name) => ({ previous: name }), { validator: (name) => { if (name === '') throw new Error('empty') } })
    // @ts-expect-error continueAsNew takes the workflow's input
    await ctx.continueAsNew({ n: 'again' })
    void wrong; void notString; void score
    return { n, s }
  }
})

export const child = defineWorkflow({
  name: 'child',
  description: 'typing',
  inputSchema: Type.Object({}),
  outputSchema: Type.Object({ n: Type.Integer() }),
  async run () {
    const out = await typed({ n: 1 })
    // @ts-expect-error a child workflow call is typed by the child's schemas
    await typed({ n: '1' })
    return { n: out.n }
  }
})

defineStep({
  name: 'bad',
  inputSchema: Type.Object({ a: Type.String() }),
  outputSchema: Type.Object({ b: Type.Number() }),
  // @ts-expect-error run must return the outputSchema's type
  run: ({ a }) => ({ b: a })
})

// A step called directly (unit tests) is typed by its schemas too.
const double = defineStep({
  name: 'double',
  inputSchema: Type.Object({ n: Type.Integer() }),
  outputSchema: Type.Object({ n: Type.Integer() }),
  run: ({ n }) => ({ n: n * 2 })
})
export async function directCalls (): Promise<number> {
  // @ts-expect-error the input is typed by the inputSchema
  await double({ n: '1' })
  const { n } = await double({ n: 1 }, { attempt: 2 })
  return n
}
