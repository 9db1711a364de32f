/**
 * Bounded waits: a client that never finishes its header section or its body gets 408
 * RequestTimeoutError (JSON) and a closed connection; an idle keep-alive connection is closed;
 * responses that take long (an SSE stream, a /workflow/run wait) are not cut by these bounds.
 * Raw sockets, so the requests reach Node's parser exactly as written; small timeouts for the test.
 */
import t from 'tap'
import { connect } from 'node:net'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'
import { engineClient, openSse, startIdle } from './helpers/history.js'

const TIMEOUTS = { SERVICE_HEADERS_TIMEOUT_MS: '300', SERVICE_REQUEST_TIMEOUT_MS: '600', SERVICE_KEEP_ALIVE_TIMEOUT_MS: '300' }
const TIMED_OUT = { error: 'RequestTimeoutError', message: 'The request was not received in time' }

async function listen (t: Parameters<typeof build>[0]) {
  const app = await build(t, TIMEOUTS)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port }
}

interface Exchange { text: string, closed: Promise<void>, write: (data: string) => boolean }

/** A raw connection: everything the server sends is kept; `closed` resolves when the server closes it. */
function open (port: number): Exchange {
  const socket = connect(port, '127.0.0.1')
  const exchange: Exchange = {
    text: '',
    closed: new Promise<void>((resolve) => { socket.once('close', () => resolve()) }),
    write: (data) => !socket.destroyed && socket.write(data)
  }
  socket.on('data', (chunk) => { exchange.text += chunk.toString() })
  socket.on('error', () => {})
  return exchange
}

function parse (text: string) {
  const split = text.indexOf('\r\n\r\n')
  return { head: text.slice(0, split), body: text.slice(split + 4) }
}

/** The parts of a request that never completes, each case sent as written and then left hanging. */
const unfinished: Record<string, string[]> = {
  'no byte at all': [],
  'a request line only': ['GET /health HTTP/1.1\r\n'],
  'headers without their end': ['GET /health HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n'],
  'a body shorter than its Content-Length': ['POST /workflow/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"workflowName":'],
  'a chunked body without its last chunk': ['POST /workflow/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"wor\r\n']
}

t.test('a request that is not received in time is a 408 RequestTimeoutError, then the connection closes', async (t) => {
  const { port } = await listen(t)
  for (const [name, parts] of Object.entries(unfinished)) {
    const exchange = open(port)
    for (const part of parts) exchange.write(part)
    await exchange.closed
    const { head, body } = parse(exchange.text)
    t.match(head, /^HTTP\/1\.1 408 /, `${name}: 408`)
    t.match(head, /content-type: application\/json/i)
    t.same(JSON.parse(body), TIMED_OUT, `${name}: the documented JSON error`)
    if (name === 'a body shorter than its Content-Length') assertContract(t, 'POST', '/workflow/start', { statusCode: 408, body })
  }
})

t.test('a body trickled byte by byte is cut at the request timeout, not reset by each byte', async (t) => {
  const { port } = await listen(t)
  const exchange = open(port)
  exchange.write('POST /workflow/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n')
  const state = { closed: false }
  void exchange.closed.then(() => { state.closed = true })
  // One byte every 50 ms would take 50 s for the whole body.
  while (!state.closed) {
    exchange.write(' ')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.same(JSON.parse(parse(exchange.text).body), TIMED_OUT)
})

t.test('an idle keep-alive connection is closed after its answer, with nothing more written', async (t) => {
  const { port } = await listen(t)
  const exchange = open(port)
  exchange.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
  await exchange.closed
  const { head, body } = parse(exchange.text)
  t.match(head, /^HTTP\/1\.1 200 /)
  t.match(head, /connection: keep-alive/i, 'the connection was kept alive first')
  t.same(JSON.parse(body), { status: 'ok' }, 'one answer, no 408 after it')
})

t.test('a long response outlives the request timeout: an SSE stream and a /workflow/run wait', async (t) => {
  const { port } = await listen(t)
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const stream = await openSse(`http://127.0.0.1:${port}/workflow/${handle.workflowId}/history/stream`)
  t.equal(stream.statusCode, 200)
  await stream.until((frames) => frames.some((f) => f.event === 'history'))
  // Well past every bound of this app (300/600/300 ms) with nothing sent upstream.
  await new Promise((resolve) => setTimeout(resolve, 2000))
  await handle.signal('poke', 'still there?')
  const frames = await stream.until((f) => f.some((x) => x.event === 'history' && x.data.includes('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED')))
  t.ok(frames.length >= 2, 'the stream still delivers events')
  await handle.terminate('done')
  await stream.ended
  t.equal(stream.frames.at(-1)?.event, 'done', 'and ends normally')

  const run = await fetch(`http://127.0.0.1:${port}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'sleepy', input: { steps: 2, delayMs: 700 } })
  })
  t.equal(run.status, 200, 'a /workflow/run longer than the request timeout is answered')
  t.equal((await run.json() as { status: string }).status, 'completed')
})
