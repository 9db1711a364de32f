/**
 * Eval runs open while a worker is upgraded replay on the new code: the history of an eval run
 * recorded before the bounds existed (five cases started at once, no timeout; the `patient`
 * fixture with its waiting case signalled) replays against today's eval workflow, which takes the
 * old path for it (patched(), worker/src/workflow/eval.ts). Without the patch it would start four
 * cases only (EVAL_DEFAULT_CONCURRENCY) where the history has five: a determinism error.
 * Replay runs in the worker sandbox; no engine is involved.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker'
import { buildWorkflowBundle } from '@flowport/worker'

Runtime.install({ logger: new DefaultLogger('ERROR') })

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: (message: string) => { console.error(message) } }

t.test('an eval run recorded before the bounds replays without a determinism error', async (t) => {
  const { bundle } = await buildWorkflowBundle({ packagesFrom: resolve('.'), workflowsDir: resolve('test/fixtures/workflows'), logger: quiet })
  const history = historyFromJSON(JSON.parse(readFileSync('test/fixtures/histories/eval-before-bounds.json', 'utf8')))
  t.equal(history.events?.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length, 5, 'the recorded run started five cases')
  // Recorded under this workflow id (the cases' ids derive from it).
  await t.resolves(Worker.runReplayHistory({ workflowBundle: bundle }, history, 'replay-eval-before-bounds'))
})
