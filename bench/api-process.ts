/**
 * The API under benchmark, in its own process (started with --expose-gc) so its memory is not
 * mixed with the 1,000 benchmark clients. Talks to bench/run.ts over the IPC channel.
 * `traceOn` … `trace` times every HTTP request (diagnostics channels of node:http) and every engine
 * call (the Temporal client's gRPC service methods, wrapped here); off by default.
 */
import diagnostics from 'node:diagnostics_channel'
import type { IncomingMessage } from 'node:http'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { DeliveryLags } from './delivery-lags.js'

const lags = new DeliveryLags()
const app = await buildApp({ config: loadConfig({ ...process.env, LOG_LEVEL: 'warn' }), historyObserver: lags })
const address = await app.listen({ port: 0, host: '127.0.0.1' })

type Command = { id: number, cmd: 'memory' | 'metrics' | 'trackLags' | 'lags' | 'close' | 'traceOn' | 'trace' | 'traceOff' }

interface OpenRequest { url: string, at: number, calls: { name: string, ms: number }[] }
let tracing = false
let requests: { url: string, ms: number, calls: OpenRequest['calls'] }[] = []
let counts: Record<string, number> = {}
const open = new WeakMap<IncomingMessage, OpenRequest>()
/** The request that arrived last: engine calls are attributed to it (exact when requests are sequential). */
let latest: OpenRequest | undefined

diagnostics.subscribe('http.server.request.start', (message) => {
  if (!tracing) return
  const { request } = message as { request: IncomingMessage }
  latest = { url: request.url ?? '', at: performance.now(), calls: [] }
  open.set(request, latest)
})
diagnostics.subscribe('http.server.response.finish', (message) => {
  const { request } = message as { request: IncomingMessage }
  const r = open.get(request)
  if (!r || !tracing) return
  open.delete(request)
  requests.push({ url: r.url, ms: performance.now() - r.at, calls: r.calls })
})
const service = app.engine.client.connection.workflowService as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
for (const [name, fn] of Object.entries(service)) {
  if (typeof fn !== 'function') continue
  service[name] = async (...args: unknown[]) => {
    if (!tracing) return await fn(...args)
    const owner = latest
    const at = performance.now()
    try { return await fn(...args) } finally {
      counts[name] = (counts[name] ?? 0) + 1
      owner?.calls.push({ name, ms: performance.now() - at })
    }
  }
}

function memory () {
  // Several passes: the first frees what the second pass' finalizers release.
  for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }
}

const metrics = () => ({ ...app.history.hubs.metrics, hubs: app.history.hubs.size, subscribers: app.history.hubs.subscribers, openStreams: app.openStreams.size })

process.on('message', (message: Command) => {
  const reply = (result: unknown) => process.send?.({ id: message.id, result })
  if (message.cmd === 'memory') reply(memory())
  else if (message.cmd === 'metrics') reply(metrics())
  else if (message.cmd === 'trackLags') reply(lags.track(1_000_000))
  else if (message.cmd === 'lags') reply(lags.taken())
  else if (message.cmd === 'traceOn') { tracing = true; requests = []; counts = {}; reply(true) } else if (message.cmd === 'traceOff') { tracing = false; latest = undefined; reply(true) } else if (message.cmd === 'trace') { reply({ requests, counts }); requests = []; counts = {} } else if (message.cmd === 'close') {
    const started = Date.now()
    void app.close().then(() => { reply({ closeMs: Date.now() - started }); process.exit(0) })
  }
})
process.send?.({ ready: address })
// bench/run.ts stops this process with SIGTERM: exit normally, so --cpu-prof writes its profile.
process.once('SIGTERM', () => { void app.close().finally(() => process.exit(0)) })
