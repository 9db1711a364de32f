import t from 'tap'
import Fastify from 'fastify'
import type { Test } from 'tap'
import errors from '../plugins/http/errors.js'
import sse, { acceptsEventStream } from '../plugins/external/sse/index.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { openSse } from './helpers/history.js'

/** The SSE plugin alone, with a heartbeat short enough to observe, on a stream that never ends by itself. */
async function streamApp (t: Test) {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(errors)
  await app.register(sse, { heartbeatMs: 20 })
  app.get('/forever', { sse: 'only' }, async (request, reply) => {
    await reply.sse.send({ event: 'hello', data: '{"pre":"serialized"}' })
    await reply.sse.send({ event: 'object', data: { serialized: 'by the plugin' } })
    reply.sse.keepAlive()
    const stream = { stop: () => reply.sse.close(), heartbeat: () => reply.raw.write(': heartbeat\n\n') }
    reply.sse.onClose(() => app.openStreams.delete(stream))
    app.openStreams.add(stream)
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  return { app, base }
}

t.test('the API heartbeat is 15 s (the plugin default of 30 s is too quiet for proxies)', async (t) => {
  t.equal(loadConfig({}).SERVICE_SSE_HEARTBEAT_MS, 15_000)
})

t.test('heartbeat comments flow on an idle stream; strings are sent as already serialized JSON', async (t) => {
  const { base } = await streamApp(t)
  const stream = await openSse(`${base}/forever`)
  await stream.until((f) => f.length >= 2)
  t.same(stream.frames.map((f) => [f.event, f.data]), [['hello', '{"pre":"serialized"}'], ['object', '{"serialized":"by the plugin"}']])
  await stream.until(() => stream.comments.includes('heartbeat'))
  t.ok(stream.comments.includes('heartbeat'), 'a heartbeat comment arrived')
  stream.close()
})

t.test('close() ends open streams instead of waiting for them', async (t) => {
  const { app, base } = await streamApp(t)
  const streams = await Promise.all([1, 2].map(async () => await openSse(`${base}/forever`)))
  await Promise.all(streams.map(async (s) => await s.until((f) => f.length >= 2)))
  t.equal(app.openStreams.size, 2)
  await app.close()
  await Promise.all(streams.map(async (s) => await s.ended))
  t.equal(app.openStreams.size, 0)
})

t.test('Accept negotiation: only an explicit refusal of text/event-stream is refused', async (t) => {
  for (const accept of [undefined, '', 'text/event-stream', '*/*', 'text/*', 'text/html, */*;q=0.8', 'application/json, text/event-stream;q=0.1']) {
    t.ok(acceptsEventStream(accept), `accepts ${accept}`)
  }
  for (const accept of ['application/json', 'text/html', '*/*, text/event-stream;q=0', 'text/event-stream;q=0.0']) {
    t.notOk(acceptsEventStream(accept), `refuses ${accept}`)
  }
})
