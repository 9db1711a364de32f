/**
 * Compile-time checks of typed mocks in workflow tests (run by `tsc -p worker`, that is
 * `npm run typecheck`, not by tap): with `definitions`, a replacement's name, input and output are
 * the step's; every line marked @ts-expect-error must stay an error, or the type-check fails.
 */
import type { WorkflowTester } from '../src/testing/index.js'
import * as evaluators from './fixtures/catalog-v1/listed/evaluators.js'
import * as steps from './fixtures/catalog-v1/listed/steps.js'

export async function typedMocks (tester: WorkflowTester): Promise<void> {
  await tester.run('listed', {}, {
    definitions: steps,
    steps: {
      // The input is the step's (`{ n: number }`), so this reads a number.
      first: (input) => ({ n: input.n + 1 }),
      second: async (text) => text.toUpperCase()
    }
  })
  await tester.run('listed', {}, {
    definitions: steps,
    // @ts-expect-error a name the steps module does not export
    steps: { frist: () => ({ n: 1 }) }
  })
  await tester.run('listed', {}, {
    definitions: steps,
    // @ts-expect-error an input of the wrong type: `first` takes `{ n: number }`
    steps: { first: (input: { n: string }) => ({ n: Number(input.n) }) }
  })
  await tester.run('listed', {}, {
    definitions: steps,
    steps: {
      // @ts-expect-error reading a field the input does not have
      first: (input) => ({ n: input.count })
    }
  })
  await tester.run('listed', {}, {
    definitions: steps,
    // @ts-expect-error an output of the wrong type: `first` gives `{ n: number }`
    steps: { first: () => ({ n: 'one' }) }
  })
  await tester.run('listed', {}, {
    definitions: { ...steps, ...evaluators },
    steps: {
      judge: ({ n }) => ({ score: n > 0 ? 1 : 0 }),
      second: (s) => s
    }
  })
  await tester.run('listed', {}, {
    definitions: { ...steps, ...evaluators },
    // @ts-expect-error an evaluator gives an Evaluation (a score)
    steps: { judge: () => ({ verdict: 'pass' }) }
  })
  // Without `definitions`, replacements stay untyped (and are checked at run time only).
  await tester.run('listed', {}, { steps: { anything: (input: unknown) => input } })
}
