/**
 * A reverse proxy in front of the API, as nginx in deploy/ is: every request (streams included) is
 * passed through, and one the API does not take (a replica restarting) is answered 502. While
 * `unavailable(seconds)` is on, it answers 503 with that `Retry-After` instead, as an API whose
 * engine is away does: the one fault here, for what a real restart does not produce.
 */
import { createServer, request, type Server } from 'node:http'
import type { Test } from 'tap'

export interface GatewayAnswer {
  status: number
  path: string
  lastEventId?: string
  /** Date.now() when the request arrived. */
  at: number
}

export interface Gateway {
  url: string
  /** Every request, with the status it was answered (for a passed-through one, the API's). */
  answers: GatewayAnswer[]
  /** Answer 503 with `Retry-After: seconds` from now on; null passes requests through again. */
  unavailable: (retryAfterSeconds: number | null) => void
}

export async function gateway (t: Test, upstreamPort: number): Promise<Gateway> {
  const answers: GatewayAnswer[] = []
  let retryAfter: number | null = null
  const server: Server = createServer((req, res) => {
    const lastEventId = req.headers['last-event-id']
    const answer: GatewayAnswer = { status: 0, path: req.url ?? '', at: Date.now(), ...(typeof lastEventId === 'string' ? { lastEventId } : {}) }
    answers.push(answer)
    if (retryAfter !== null) {
      answer.status = 503
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(retryAfter) })
      res.end(JSON.stringify({ error: 'EngineUnavailableError', message: 'The workflow engine is unavailable (from the test gateway)' }))
      return
    }
    // A connection of its own per request (nginx's default towards an upstream): none outlives a restart.
    const upstream = request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent: false }, (reply) => {
      answer.status = reply.statusCode ?? 0
      res.writeHead(answer.status, reply.headers)
      reply.pipe(res)
      reply.on('error', () => res.destroy())
    })
    upstream.on('error', () => {
      if (res.headersSent) return res.destroy()
      answer.status = 502
      res.writeHead(502, { 'content-type': 'text/html' })
      res.end('<html><body><h1>502 Bad Gateway</h1></body></html>')
    })
    res.on('close', () => upstream.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    answers,
    unavailable: (seconds) => { retryAfter = seconds }
  }
}
