/**
 * SSE benchmark: 1,000 concurrent stream clients on one run: upstream engine calls, API memory per
 * idle stream, event-to-client latency next to a raw engine long-poll's (targets and method: the
 * section's note, sseReport below).
 */
import net from 'node:net'
import { cpus } from 'node:os'
import type { Client } from '@temporalio/client'
import { formatMs } from '@flowport/core/duration'
import { percentiles, verdict, type Percentiles } from './measure.js'
import { table } from './results.js'
import { until } from '../test/helpers/processes.js'
import type { Api } from './stack.js'

/** The API process (stack.ts), as far as these benchmarks reach it. */
export type ApiHandle = Pick<Api, 'base' | 'call'>

interface Memory { rss: number, heapUsed: number, external: number, arrayBuffers: number }
interface Metrics { upstreamCalls: number, longPolls: number, replayCalls: number, inFlight: number, hubs: number, subscribers: number, openStreams: number }

const now = () => performance.timeOrigin + performance.now()

interface StreamClient {
  historyFrames: number
  eventIds: number[]
  firstHistory: Promise<void>
  ended: Promise<void>
  close: () => void
}

/** Every `"key":"value"` string value in `text`, found by scanning (much cheaper than JSON.parse). */
function valuesOf (text: string, key: string): string[] {
  const marker = `"${key}":"`
  const values: string[] = []
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i)) {
    i += marker.length
    values.push(text.slice(i, text.indexOf('"', i)))
  }
  return values
}

/**
 * A lean SSE client on a raw socket (a hand-written GET; the chunked body is scanned as is, since
 * every SSE frame is one HTTP chunk). 1,000 clients share this process' event loop, so the data
 * callback does as little as possible (no HTTP client stack, no JSON.parse, nothing retained but
 * numbers): cost here would show up as API latency.
 */
function openStream (url: string, record: Recorder): StreamClient {
  let firstHistory!: () => void
  let ended!: () => void
  const client: StreamClient = {
    historyFrames: 0,
    eventIds: [],
    firstHistory: new Promise<void>((resolve) => { firstHistory = resolve }),
    ended: new Promise<void>((resolve) => { ended = resolve }),
    close: () => { socket.destroy() }
  }
  const { hostname, port, pathname, search } = new URL(url)
  const socket = net.connect({ host: hostname, port: Number(port) })
  socket.setEncoding('latin1')
  socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`)
  let pending = ''
  socket.on('data', (chunk: string) => {
    const at = now()
    pending += chunk
    const end = pending.lastIndexOf('\n\n')
    if (end < 0) return
    const complete = pending.slice(0, end)
    pending = pending.slice(end + 2)
    for (let i = complete.indexOf('event: history'); i >= 0; i = complete.indexOf('event: history', i + 1)) client.historyFrames++
    for (const id of valuesOf(complete, 'eventId')) client.eventIds.push(Number(id))
    if (record.since !== undefined) {
      for (const time of valuesOf(complete, 'eventTime')) {
        const committed = Date.parse(time)
        if (committed >= record.since) record.latencies.push(at - committed)
      }
    }
    if (client.historyFrames > 0) firstHistory()
    // The last chunk of a chunked body: the server ended the stream.
    if (pending.includes('0\r\n\r\n')) socket.end()
  })
  socket.on('close', () => { firstHistory(); ended() })
  socket.on('error', () => {})
  return client
}

/** Latency samples of events committed at or after `since` (set once every client is connected). */
interface Recorder { since?: number, latencies: number[] }

const streamUrl = (api: ApiHandle, workflowId: string) => `${api.base}/workflow/${workflowId}/history/stream`

/** `n` streams on `url`, each recording its latencies into `record` (none by default: a recorder that never starts). */
async function openMany (url: string, n: number, record: Recorder = { latencies: [] }): Promise<StreamClient[]> {
  const clients: StreamClient[] = []
  // Ramp in waves so the accept queue never overflows.
  for (let i = 0; i < n; i += 100) {
    const wave = Array.from({ length: Math.min(100, n - i) }, () => openStream(url, record))
    await Promise.all(wave.map(async (c) => await c.firstHistory))
    clients.push(...wave)
  }
  return clients
}

/** The engine floor: one raw long-poll loop on the same run, same latency definition. */
async function rawFollower (client: Client, workflowId: string, runId: string, record: Recorder): Promise<void> {
  let token: Uint8Array | undefined
  for (;;) {
    const page = await client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId, runId }, waitNewEvent: true, nextPageToken: token })
    const at = now()
    for (const e of page.history?.events ?? []) {
      const committed = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6)
      if (record.since !== undefined && committed >= record.since) record.latencies.push(at - committed)
    }
    if (!page.nextPageToken?.length) return
    token = page.nextPageToken
  }
}

export interface LiveResult {
  clients: number
  events: number
  frames: number
  upstreamCalls: number
  longPolls: number
  replayCalls: number
  clientsComplete: number
  exact: boolean
  /** eventTime → frame parsed at the client. */
  latency: Percentiles
  /** eventTime → page read by one raw engine long-poll (the floor). */
  raw: Percentiles
  /** eventTime → page read by the API's hub. */
  apiRead: Percentiles
  /** API page read → frame written to the client's socket. */
  apiDelivery: Percentiles
  /** The samples behind `latency` and `raw`, for a caller that pools several phases (bench/latency.ts). */
  samples: { latency: number[], raw: number[] }
}

export interface SseResults {
  clients: number
  idle: { perStreamHeapBytes: number, perStreamRssBytes: number, perStreamExternalBytes: number, hubs: number, inFlight: number, upstreamCallsWhileIdle: number, releasedHubs: number, releasedInFlight: number }
  live: LiveResult[]
  shutdown: { openStreams: number, closeMs: number }
}

/** n clients follow one live `sleepy` run: upstream calls and latency. */
export async function livePhase (api: ApiHandle, temporal: Client, taskQueue: string, n: number, steps: number): Promise<LiveResult> {
  const record: Recorder = { latencies: [] }
  const raw: Recorder = { latencies: [] }
  const m0 = await api.call<Metrics>('metrics')
  const run = await temporal.workflow.start('sleepy', { taskQueue, workflowId: `bench-sleepy-${n}-${Date.now()}`, args: [{ steps, delayMs: 600 }] })
  const clients = await openMany(streamUrl(api, run.workflowId), n, record)
  const rawDone = rawFollower(temporal, run.workflowId, run.firstExecutionRunId, raw)
  // Latency counts only events committed after every client is connected.
  record.since = raw.since = Date.now()
  await api.call('trackLags')
  await Promise.all(clients.map(async (c) => await c.ended))
  await rawDone
  const m1 = await api.call<Metrics>('metrics')
  const lags = await api.call<{ delivery: number[], read: number[] }>('lags')
  const events = Math.max(...clients.map((c) => c.eventIds.length))
  return {
    clients: n,
    events,
    frames: Math.max(...clients.map((c) => c.historyFrames)),
    upstreamCalls: m1.upstreamCalls - m0.upstreamCalls,
    longPolls: m1.longPolls - m0.longPolls,
    replayCalls: m1.replayCalls - m0.replayCalls,
    clientsComplete: clients.filter((c) => c.eventIds.length === events).length,
    exact: clients.every((c) => c.eventIds.length === events && c.eventIds.every((id, i) => id === i + 1)),
    latency: percentiles(record.latencies),
    raw: percentiles(raw.latencies),
    apiRead: percentiles(lags.read),
    apiDelivery: percentiles(lags.delivery),
    samples: { latency: record.latencies, raw: raw.latencies }
  }
}

export type IdleStreams = SseResults['idle']

/**
 * `n` streams on a run that does nothing (a workflow type no worker serves): the API's memory
 * after forced GCs before opening them and after 3 s idle, per stream; engine calls meanwhile.
 */
export async function measureIdleStreams (api: ApiHandle, temporal: Client, n: number): Promise<IdleStreams> {
  const idle = await temporal.workflow.start('bench-idle', { taskQueue: 'bench-no-worker', workflowId: `bench-idle-${Date.now()}`, args: [] })
  // A first round as large as the measured one: the code V8 compiles for the first streams is
  // paid once per process, not per stream (it was about 0.7 KiB of a 50-stream warm-up's figure).
  const warm = await openMany(streamUrl(api, idle.workflowId), n)
  for (const c of warm) c.close()
  if (!await until(async () => (await api.call<Metrics>('metrics')).hubs === 0, 400, 50)) throw new Error('the warm-up streams were not released')
  const before = await api.call<Memory>('memory')
  const idleClients = await openMany(streamUrl(api, idle.workflowId), n)
  const idleStart = await api.call<Metrics>('metrics')
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const after = await api.call<Memory>('memory')
  const idleMetrics = await api.call<Metrics>('metrics')
  for (const c of idleClients) c.close()
  if (!await until(async () => { const m = await api.call<Metrics>('metrics'); return m.hubs === 0 && m.inFlight === 0 }, 400, 50)) throw new Error('the idle streams were not released')
  const released = await api.call<Metrics>('metrics')
  await idle.terminate('benchmark phase over')
  return {
    perStreamHeapBytes: (after.heapUsed - before.heapUsed) / n,
    perStreamRssBytes: (after.rss - before.rss) / n,
    perStreamExternalBytes: (after.external - before.external) / n,
    hubs: idleMetrics.hubs,
    inFlight: idleMetrics.inFlight,
    upstreamCallsWhileIdle: idleMetrics.upstreamCalls - idleStart.upstreamCalls,
    releasedHubs: released.hubs,
    releasedInFlight: released.inFlight
  }
}

export async function runSseBenchmark (api: ApiHandle, temporal: Client, taskQueue: string, n = 1000): Promise<SseResults> {
  // 1. Idle streams: memory per stream and upstream calls while nothing happens.
  const idle = await measureIdleStreams(api, temporal, n)

  // 2. Live runs: n clients (the figure of record), then 100 and 1 for how latency scales with the fan-out.
  const live = [await livePhase(api, temporal, taskQueue, n, 20)]
  for (const small of [100, 1]) if (small < n) live.push(await livePhase(api, temporal, taskQueue, small, 10))

  // 3. Shutdown with n open streams.
  const idle2 = await temporal.workflow.start('bench-idle', { taskQueue: 'bench-no-worker', workflowId: `bench-idle2-${Date.now()}`, args: [] })
  const open = await openMany(streamUrl(api, idle2.workflowId), n)
  const { closeMs } = await api.call<{ closeMs: number }>('close')
  await Promise.all(open.map(async (c) => await c.ended))
  await idle2.terminate('benchmark over')

  return {
    clients: n,
    idle,
    live,
    shutdown: { openStreams: open.length, closeMs }
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const ms = (v: number) => formatMs(v, 1)

export function sseReport (r: SseResults, machine: string): string {
  const main = r.live[0]
  const heap = r.idle.perStreamHeapBytes + r.idle.perStreamExternalBytes
  const pct = (p: { p50: number, p99: number }) => `p50 ${ms(p.p50)}, p99 ${ms(p.p99)}`
  const scaling = r.live.map((l) => `| ${l.clients} | ${pct(l.latency)} | ${pct(l.raw)} | ${pct(l.apiRead)} | ${pct(l.apiDelivery)} | ${l.upstreamCalls} for ${l.events} events | ${l.exact ? 'yes' : '**no**'} |`)
  return `## SSE: ${r.clients} concurrent clients on one run

${machine}
The API in its own process with \`--expose-gc\`; the clients (raw sockets, one per stream) in the benchmark process. All of
it on these ${cpus().length} cores, so every socket costs a write syscall in the API *and* a read in the client on the same CPUs.

| Figure | Target | Measured | |
|---|---|---|---|
| Upstream engine history calls while ${main.clients} clients follow a live \`sleepy\` run (${main.events} events) | one shared long-poll, not one per client | ${main.upstreamCalls} calls (${main.longPolls} long-polls, ${main.replayCalls} replays) = ${(main.upstreamCalls / main.events).toFixed(2)} per event, ${(main.upstreamCalls / main.clients).toFixed(3)} per client | ${verdict(main.replayCalls === 0 && main.upstreamCalls < main.events)} |
| Engine calls open with ${r.clients} idle streams on one run | 1 | ${r.idle.inFlight} (hubs: ${r.idle.hubs}; calls made during 3 s idle: ${r.idle.upstreamCallsWhileIdle}) | ${verdict(r.idle.inFlight === 1)} |
| API memory per idle stream, heap + external after GC | ≤ 8 KB | ${kb(heap)} (heap ${kb(r.idle.perStreamHeapBytes)}, external ${kb(r.idle.perStreamExternalBytes)}) | ${verdict(heap <= 8 * 1024)} |
| API memory per idle stream, RSS delta | ≤ 8 KB | ${kb(r.idle.perStreamRssBytes)} | ${verdict(r.idle.perStreamRssBytes <= 8 * 1024)} |
| Event-to-client latency p50, ${main.clients} clients (eventTime → frame parsed by the client) | ≤ 20 ms | ${ms(main.latency.p50)} (${main.latency.samples} samples) | ${verdict(main.latency.p50 <= 20)} |
| Event-to-client latency p99, ${main.clients} clients | — | ${ms(main.latency.p99)} | |
| Every client got every event exactly once, in order | all | ${main.clientsComplete}/${main.clients}, exact: ${main.exact} | ${verdict(main.exact)} |
| Hubs and engine calls left after all clients disconnected | 0 and 0 | ${r.idle.releasedHubs} and ${r.idle.releasedInFlight} | ${verdict(r.idle.releasedHubs === 0 && r.idle.releasedInFlight === 0)} |
| \`app.close()\` with ${r.shutdown.openStreams} open streams | prompt | ${ms(r.shutdown.closeMs)} | |

### Where the latency goes, by number of clients

${table(['Clients', 'eventTime → client', 'eventTime → raw engine long-poll (floor)', 'eventTime → API hub read', 'API read → written to the client\'s socket', 'Upstream calls', 'Exact'], scaling)}

The engine floor is what one direct Temporal long-poll sees on the same run. "API hub read" includes the time the API's
event loop was still busy writing the previous batch to every client; "written to the socket" is the fan-out itself
(one shared, pre-serialized frame, one write per client). With one or a hundred clients the API adds a few
milliseconds to the engine floor; with a thousand on ${cpus().length} shared cores the per-socket syscalls (the API's writes
and the clients' reads, on the same CPUs) dominate. Run the clients on other machines to measure the API alone.

### Method

- **Upstream calls**: \`fastify.history.hubs.metrics\` counts every GetWorkflowExecutionHistory the API makes (long-polls of
  the per-run hub and per-client replays). The clients connect in waves of 100 while the run is going (\`sleepy\`, 600 ms
  timers); late joiners are served from the hub's buffer, so replays stay at zero and the calls follow the engine's
  batches, not the clients.
- **Memory per idle stream**: ${r.clients} streams on a run that does nothing (a workflow type no worker serves); the API's
  \`process.memoryUsage()\` after four forced GCs, before opening them and after 3 s idle, divided by the number of streams.
  It covers everything a connection costs in the API process: socket, HTTP parser, request/reply, SSE context and
  heartbeat timer, the stream's subscription.
- **Latency**: "committed" = the event's \`eventTime\`, which the engine sets when it writes the event to history; a
  client's latency is the time its frame was parsed minus that (one clock, one machine). Only events written after all
  clients were connected count. The API-side split comes from the benchmark's delivery-lag recorder
  (bench/delivery-lags.ts), passed into the API's history hubs as an observer.
`
}
