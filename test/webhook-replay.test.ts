/**
 * Deliveries open while a worker is upgraded replay on the new code: the history of a completion
 * webhook's delivery recorded before its POSTs moved to the catalog's delivery queue (the code of
 * 399f9c7~1: an attempt answered 500, a timer, a second attempt delivered, every POST on the
 * catalog's queue, no patch marker) replays against today's delivery workflow, which takes the old
 * path for it (patched('flowport-webhook-delivery-queue'), worker/src/workflow/webhook.ts).
 * Replay compares the commands' kinds, activity types and ids with the history, not an activity's
 * task queue (the delivery queue without its patch replays too): what this guards is the delivery
 * workflow's sequence of commands for a history of that time, against any later change of it not
 * behind a patch. Replay runs in the worker sandbox; no engine is involved.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker'
import { buildWorkflowBundle } from '@flowport/worker'
import { WEBHOOK_DELIVER_ACTIVITY, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'

Runtime.install({ logger: new DefaultLogger('ERROR') })

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: (message: string) => { console.error(message) } }

t.test('a delivery recorded before the delivery queue replays without a determinism error', async (t) => {
  const { bundle } = await buildWorkflowBundle({ packagesFrom: resolve('.'), workflowsDir: resolve('test/fixtures/workflows'), logger: quiet })
  const history = historyFromJSON(JSON.parse(readFileSync('test/fixtures/histories/webhook-before-delivery-queue.json', 'utf8')))
  const events = history.events ?? []
  t.equal(events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name, WEBHOOK_WORKFLOW_TYPE, 'a history of the delivery workflow')
  const posts = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === WEBHOOK_DELIVER_ACTIVITY)
  t.equal(posts.length, 2, 'two attempts: one failed, one delivered')
  t.ok(posts.every((e) => !e.activityTaskScheduledEventAttributes!.taskQueue!.name!.endsWith(':webhooks')), 'sent from the catalog\'s queue')
  t.notOk(events.some((e) => e.markerRecordedEventAttributes), 'recorded before the patch: no marker')
  t.ok(events.some((e) => e.timerStartedEventAttributes), 'with the retry\'s timer')
  // Recorded under this workflow id (the delivery's own).
  await t.resolves(Worker.runReplayHistory({ workflowBundle: bundle }, history, '__flowport_webhook:BXuttVc6irH5WHwK7krzTnCPoRa2y-HglDgWxFRQHrY'))
})
