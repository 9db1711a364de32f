/**
 * An HTTP/2 proxy between the API and the engine that passes every gRPC call through, except the
 * methods it is told to stall: those it accepts and never answers. An engine that hangs on one
 * kind of call while answering the rest is a fault the real engine cannot be asked to produce
 * (SIGSTOP freezes every call); the stalled calls are real gRPC calls of the real client.
 */
import { connect, createServer, constants, type ClientHttp2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2'
import type { Test } from 'tap'

export interface GrpcStallProxy {
  /** `127.0.0.1:<port>`, a TEMPORAL_ADDRESS. */
  address: string
  /** Calls of a stalled method received so far (their paths). */
  stalled: string[]
  /** Stall calls whose path ends with one of these method names (e.g. `DescribeTaskQueue`); empty: stall none. */
  stall: (methods: string[]) => void
}

const { HTTP2_HEADER_PATH, HTTP2_HEADER_STATUS } = constants

/** Only the headers a request or answer may carry onwards (no pseudo-headers but `:path`/`:status`). */
function forwarded (headers: IncomingHttpHeaders, keep: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (name.startsWith(':') && name !== keep)) continue
    out[name] = value
  }
  return out
}

function pass (upstream: ClientHttp2Session, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const call = upstream.request({ ...forwarded(headers, HTTP2_HEADER_PATH), ':method': 'POST' })
  let answer: IncomingHttpHeaders = {}
  let trailers: IncomingHttpHeaders | undefined
  call.on('response', (h) => {
    answer = h
    if (!stream.destroyed) stream.respond(forwarded(h, HTTP2_HEADER_STATUS), { waitForTrailers: true })
  })
  call.on('trailers', (t) => { trailers = t })
  // A trailers-only answer (a gRPC error) carries its status in the headers: sent on as trailers.
  stream.on('wantTrailers', () => {
    const status = trailers ?? Object.fromEntries(Object.entries(answer).filter(([name]) => name.startsWith('grpc-')))
    stream.sendTrailers(forwarded(status, ''))
  })
  call.on('error', () => { stream.destroy() })
  stream.on('error', () => { call.destroy() })
  stream.on('close', () => { if (!call.closed) call.close() })
  stream.pipe(call)
  call.pipe(stream)
}

export async function grpcStallProxy (t: Test, engineAddress: string): Promise<GrpcStallProxy> {
  const upstream = connect(`http://${engineAddress}`)
  upstream.on('error', () => {})
  let methods: string[] = []
  const stalled: string[] = []
  const held: ServerHttp2Stream[] = []
  const server = createServer()
  server.on('stream', (stream, headers) => {
    const path = String(headers[HTTP2_HEADER_PATH])
    if (methods.some((m) => path.endsWith(`/${m}`))) {
      stalled.push(path)
      held.push(stream)
      stream.on('error', () => {})
      // Read the request, answer nothing.
      stream.resume()
      return
    }
    pass(upstream, stream, headers)
  })
  const sessions = new Set<import('node:http2').ServerHttp2Session>()
  server.on('session', (session) => {
    sessions.add(session)
    session.on('close', () => sessions.delete(session))
  })
  server.on('sessionError', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const stream of held) stream.destroy()
    for (const session of sessions) session.destroy()
    upstream.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as { port: number }
  return { address: `127.0.0.1:${port}`, stalled, stall: (names) => { methods = names } }
}
