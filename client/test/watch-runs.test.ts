/**
 * FlowportClient.watchRuns() against the real API's runs feed: the starts and closes of this
 * file's runs, each once, across a connection the API side destroys (the client resumes with the
 * last id by itself). Other files run on the same catalog meanwhile: assertions look at these runs.
 */
import t from 'tap'
import { build } from '../../test/helpers/app.js'
import { trackSockets } from '../../test/helpers/browser.js'
import { FlowportClient, type RunsFeedEvent } from '@flowport/client'

const catalog = process.env.FLOWPORT_TEST_CATALOG!

t.test('watchRuns yields every start and close once, resuming by itself after a dropped connection', async (t) => {
  const app = await build(t, { SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500' })
  const sockets = trackSockets(app)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new FlowportClient({ baseUrl })
  const controller = new AbortController()
  const ours = new Set<string>()
  const events: RunsFeedEvent[] = []
  const seen = (workflowId: string, change: string) =>
    events.filter((e) => e.event === 'run' && e.data.run.workflowId === workflowId && e.data.change === change).length
  let first: string | undefined
  let second: string | undefined
  let dropped = 0
  for await (const event of client.watchRuns({ catalog, workflowName: 'hello', signal: controller.signal, maxReconnectWaitMs: 30_000 })) {
    events.push(event)
    if (event.event === 'feed' && first === undefined) {
      first = (await client.start('hello', { name: 'watch' }, { catalog })).workflowId
      ours.add(first)
    }
    if (event.event !== 'run' || !ours.has(event.data.run.workflowId)) continue
    if (second === undefined && seen(first!, 'closed') === 1) {
      // Cut the connection, then start a run the client can only learn of by resuming.
      dropped = sockets.size
      for (const socket of sockets) socket.destroy()
      // Through inject: the client's own pooled connections were just cut too.
      second = (await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'hello', catalog, input: { name: 'watch' } } })).json().workflowId as string
      ours.add(second)
    }
    if (second !== undefined && seen(second, 'closed') === 1) controller.abort()
  }
  t.ok(dropped >= 1, 'the feed connection was cut')
  t.ok(events.filter((e) => e.event === 'feed').length >= 2, 'a feed frame again on the reconnect')
  for (const workflowId of ours) {
    t.equal(seen(workflowId, 'started'), 1, `${workflowId} started once`)
    t.equal(seen(workflowId, 'closed'), 1, `${workflowId} closed once`)
  }
  const ids = events.filter((e) => e.event === 'run').map((e) => e.id)
  t.equal(new Set(ids).size, ids.length, 'no change twice')
})
