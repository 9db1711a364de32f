/**
 * Replays the recorded histories (scripts/record-histories.ts: the examples and the catalog
 * workflow) against the current code:
 * a change to the examples or to the SDK runtime that would break runs in flight fails here.
 * Replay runs in the worker sandbox only; no engine is involved.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import { DefaultLogger, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker'
import { buildWorkflowBundle } from '@flowport/worker'
import { quietLogger, REPOSITORY_ROOT } from './paths.js'

Runtime.install({ logger: new DefaultLogger('ERROR') })

const dir = fileURLToPath(new URL('./histories/', import.meta.url))
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
const read = (file: string): Record<string, any> => JSON.parse(readFileSync(`${dir}${file}`, 'utf8'))

let workflowBundle: WorkflowBundleWithSourceMap
t.before(async () => {
  workflowBundle = (await buildWorkflowBundle({ packagesFrom: REPOSITORY_ROOT, logger: quietLogger })).bundle
})

t.test('every recorded history (the examples and the catalog workflow) replays without a determinism error', async (t) => {
  t.ok(files.length >= 10, `${files.length} histories recorded`)
  // Recorded under `replay-<file name up to its first dot>` (see the recording script).
  const histories = files.map((file) => ({ workflowId: `replay-${file.split('.')[0]}`, history: historyFromJSON(read(file)) }))
  let replayed = 0
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
    t.equal(result.error, undefined, `${result.workflowId} replays`)
    replayed++
  }
  t.equal(replayed, files.length, 'every history was replayed')
})

t.test('a history that no longer matches the code fails the replay', async (t) => {
  // As if the hello workflow had renamed its step: the recorded command no longer matches.
  const history = read('hello.json')
  for (const event of history.events) {
    const attributes = event.activityTaskScheduledEventAttributes
    if (attributes !== undefined) attributes.activityType.name = 'hello#salute'
  }
  const results = []
  for await (const result of Worker.runReplayHistories({ workflowBundle }, [{ workflowId: 'replay-hello', history: historyFromJSON(history) }])) results.push(result)
  t.equal(results.length, 1)
  t.match(results[0]?.error?.name, /DeterminismViolationError|ReplayError/, 'replay reports a determinism error')
})
