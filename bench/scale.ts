/**
 * `npm run bench -- scale` (issue 49): many at once, and something that never answers, in three
 * phases scaled by SCALE (default 1; 0.1 while developing): webhooks to a receiver that never
 * finishes while `hello` keeps running, runs-feed clients reconnecting at once after a replica
 * restart, and many idle SSE streams (the method: the section's note below). Nothing is asserted.
 */
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { formatMs } from '@flowport/core/duration'
import { mapBounded } from '@flowport/core/bounded'
import { freePort, sleep } from '../test/helpers/processes.js'
import { parseMetrics, total } from '../test/helpers/prometheus.js'
import { machineNote, writeSection } from './results.js'
import { median, quantile } from './measure.js'
import { startStack, stopAll, type Api } from './stack.js'

const SCALE = Number(process.env.SCALE ?? 1)
const RUNS = Math.round(1000 * SCALE)
const FEED_CLIENTS = Math.round(500 * SCALE)
const STREAMS = Math.round(1000 * SCALE)
/** How long `hello` keeps running while the deliveries try the receiver. */
const HELLO_WINDOW_MS = Number(process.env.SCALE_HELLO_WINDOW_S ?? 60) * 1000
const HELLO_IN_FLIGHT = 4
/** The idle window over which engine calls per second are counted. */
const IDLE_WINDOW_MS = 10_000
const ACTIVITY_SLOTS = 100

const ms = (v: number) => (Number.isNaN(v) ? '—' : formatMs(v, 1))
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ')

/** A receiver that takes every request and answers one byte every 2 s, never finishing. */
async function tricklingReceiver () {
  let requests = 0
  let open = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      requests++
      open++
      let sent = 0
      const line = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n'
      const timer = setInterval(() => { req.socket.write(line[sent++ % line.length]!) }, 2000)
      req.socket.on('close', () => { clearInterval(timer); open-- })
      void res
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get requests () { return requests },
    get open () { return open },
    close: () => { server.closeAllConnections(); server.close() }
  }
}

async function json (api: Api, method: string, path: string, body?: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(`${api.base}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** The API's engine calls so far, by method (its Prometheus counters). */
async function engineCalls (api: Api): Promise<Record<string, number>> {
  const samples = parseMetrics(await (await fetch(`${api.base}/metrics`)).text()).filter((s) => s.name === 'flowport_engine_call_duration_seconds_count')
  const by: Record<string, number> = {}
  for (const s of samples) by[s.labels.method!] = (by[s.labels.method!] ?? 0) + s.value
  return by
}

const delta = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([m, n]) => [m, n - (before[m] ?? 0)]).filter(([, n]) => (n as number) > 0)) as Record<string, number>
const sum = (by: Record<string, number>) => Object.values(by).reduce((a, b) => a + b, 0)

/** An SSE stream held open; `firstId` resolves with the first `id:` it reads (or undefined at its end). */
function openStream (url: string, headers: Record<string, string> = {}) {
  let request: ReturnType<typeof httpRequest> | undefined
  let resolveId: (id: string | undefined) => void = () => {}
  const firstId = new Promise<string | undefined>((resolve) => { resolveId = resolve })
  const opened = new Promise<number>((resolve) => {
    request = httpRequest(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res: IncomingMessage) => {
      resolve(res.statusCode ?? 0)
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        const match = /^id: (.+)$/m.exec(buffer)
        if (match) { resolveId(match[1]); buffer = '' } else if (buffer.length > 65536) buffer = ''
      })
      res.on('end', () => { resolveId(undefined) })
      res.on('error', () => { resolveId(undefined) })
    })
    request.on('error', () => { resolve(0); resolveId(undefined) })
    request.end()
  })
  return { opened, firstId, close: () => { request?.destroy() } }
}

async function workerFreeSlots (metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  // The steps' slots: the catalog's queue (deliveries have a queue and slots of their own).
  return total(parseMetrics(text), 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker', task_queue: catalog })
}

const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return 'unknown' } })()
const machine = machineNote()
const catalog = `bench-scale-${randomUUID()}`
const metricsPort = await freePort()
const stack = await startStack([catalog], {
  env: () => ({ SERVICE_RATE_LIMIT_MAX: '0', SERVICE_STREAMS_MAX: '0', SERVICE_STREAMS_MAX_PER_KEY: '0' }),
  workerEnv: { LOG_LEVEL: 'error', SERVICE_WORKFLOWS_DIR: '', SERVICE_WORKER_METRICS_PORT: String(metricsPort), ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS: String(ACTIVITY_SLOTS) }
})
const temporal = stack.client
const receiver = await tricklingReceiver()
try {
  let started = await stack.api(catalog)
  let api = started.api
  console.log(`scale ${SCALE}: ${RUNS} webhook runs, ${FEED_CLIENTS} feed clients, ${STREAMS} streams; API at ${api.base}; commit ${commit}`)

  // 1. Webhooks to a trickling receiver while hello keeps completing.
  const prefix = `scale-${randomUUID()}-`
  const startsAt = performance.now()
  await mapBounded(Array.from({ length: RUNS }, (_, i) => i), 16, async (i) => {
    const res = await json(api, 'POST', '/workflow/start', { workflowName: 'approval', input: { label: `s${i}` }, workflowId: `${prefix}${i}`, webhook: { url: receiver.url, secret: 'whsec_' + Buffer.from('bench-scale-secret-0123456789').toString('base64') } })
    if (res.status !== 200) throw new Error(`start ${i}: ${res.status} ${JSON.stringify(res.body)}`)
  })
  const startMs = performance.now() - startsAt
  console.log(`started ${RUNS} runs with webhooks in ${ms(startMs)}; approving them all`)
  await mapBounded(Array.from({ length: RUNS }, (_, i) => i), 16, async (i) => {
    await temporal.workflow.getHandle(`${prefix}${i}`).signal('approve', { by: 'bench' })
  })
  const loadBefore = load()
  const latencies: number[] = []
  const failures: number[] = []
  const slots: number[] = []
  const deadline = performance.now() + HELLO_WINDOW_MS
  const sampler = (async () => {
    while (performance.now() < deadline) {
      slots.push(await workerFreeSlots(metricsPort).catch(() => NaN))
      await sleep(1000)
    }
  })()
  await Promise.all(Array.from({ length: HELLO_IN_FLIGHT }, async () => {
    while (performance.now() < deadline) {
      const at = performance.now()
      const res = await json(api, 'POST', '/workflow/run', { workflowName: 'hello', input: { name: 'Ada' } }).catch(() => ({ status: 0, body: undefined }))
      if (res.status === 200 && res.body?.status === 'completed') latencies.push(performance.now() - at)
      else failures.push(res.status)
    }
  }))
  await sampler
  const hello = { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) }
  const freeSlots = slots.filter((s) => !Number.isNaN(s))
  const webhooks = { requests: receiver.requests, openAtEnd: receiver.open, loadBefore, loadAfter: load() }
  console.log(`hello: ${latencies.length} completed, p50 ${ms(hello.p50)}, p95 ${ms(hello.p95)}; failures ${failures.length}; free slots min ${Math.min(...freeSlots)}; receiver ${JSON.stringify(webhooks)}`)

  // 2. Feed clients reconnecting at once after a replica restart.
  const takers = Array.from({ length: FEED_CLIENTS }, () => openStream(`${api.base}/workflow/runs/stream`))
  const ids = await Promise.all(takers.map(async (s) => await s.firstId))
  for (const s of takers) s.close()
  const withIds = ids.filter((id): id is string => id !== undefined)
  await stopAll([started.child])
  await sleep(3000) // the ids fall behind the new replica's frontier: each resume needs a catch-up read
  started = await stack.api(catalog)
  api = started.api
  const before = await engineCalls(api)
  const resumed = withIds.map((id) => openStream(`${api.base}/workflow/runs/stream`, { 'last-event-id': id }))
  const statuses = await Promise.all(resumed.map(async (s) => await s.opened))
  await sleep(5000)
  const reconnect = delta(await engineCalls(api), before)
  for (const s of resumed) s.close()
  const reconnected = statuses.filter((s) => s === 200).length
  console.log(`feed: ${withIds.length} ids, ${reconnected} reconnected; engine calls ${JSON.stringify(reconnect)}`)

  // 3. Idle open streams: memory and engine calls per second.
  await sleep(2000)
  const memBefore = await api.call<{ rss: number, heapUsed: number, external: number }>('memory')
  const idleRuns = Math.max(1, Math.ceil(STREAMS / 2 / 10))
  const idleIds: string[] = []
  for (let i = 0; i < idleRuns; i++) {
    // Runs of a workflow type no worker serves: open, and nothing happens in them.
    const handle = await temporal.workflow.start('nobody-runs-this', { taskQueue: `no-worker-${randomUUID()}`, workflowId: `scale-idle-${randomUUID()}`, args: [] })
    idleIds.push(handle.workflowId)
  }
  const streams = Array.from({ length: STREAMS }, (_, i) => i % 2 === 0
    ? openStream(`${api.base}/workflow/runs/stream`)
    : openStream(`${api.base}/workflow/${idleIds[Math.floor(i / 2) % idleRuns]}/history/stream`))
  const open = (await Promise.all(streams.map(async (s) => await s.opened))).filter((s) => s === 200).length
  await sleep(3000)
  const idleBefore = await engineCalls(api)
  await sleep(IDLE_WINDOW_MS)
  const idleCalls = delta(await engineCalls(api), idleBefore)
  const hubs = await api.call<{ hubs: number, inFlight?: number }>('metrics')
  const memWith = await api.call<{ rss: number, heapUsed: number, external: number }>('memory')
  for (const s of streams) s.close()
  for (const id of idleIds) await temporal.workflow.getHandle(id).terminate('bench over').catch(() => undefined)
  console.log(`streams: ${open} open; memory ${JSON.stringify({ memBefore, memWith })}; idle engine calls ${JSON.stringify(idleCalls)}`)

  const per = (n: number, d: number) => d === 0 ? '—' : (n / d).toFixed(3)
  const list = (by: Record<string, number>) => Object.entries(by).sort((a, b) => b[1] - a[1]).map(([m, n]) => `${m} ${n}`).join(', ') || 'none'
  writeSection('scale', `## Scale: many at once, and a receiver that never answers (issue 49)

${machine}
Commit ${commit}, SCALE=${SCALE} (\`SCALE=1\` is the issue's figures: 1,000 runs with webhooks, 500 feed clients, 1,000 streams).
Engine, worker (${ACTIVITY_SLOTS} activity slots), API (its own process) and the clients all on this machine; load average
${loadBefore} when the \`hello\` window started, ${webhooks.loadAfter} when it ended.

| Phase | Figure | Measured |
|---|---|---|
| ${RUNS} runs with webhooks to a receiver trickling one byte every 2 s, all closing at once | \`hello\` through \`POST /workflow/run\` (${HELLO_IN_FLIGHT} in flight, ${HELLO_WINDOW_MS / 1000} s) | ${latencies.length} completed, p50 ${ms(hello.p50)}, p95 ${ms(hello.p95)}; ${failures.length} not completed |
| | worker's free step slots (the catalog's queue; webhook POSTs have their own), sampled each second | min ${Math.min(...freeSlots)}, median ${median(freeSlots)} of ${ACTIVITY_SLOTS} |
| | delivery attempts the receiver took in the window (each ends at its 10 s deadline) | ${webhooks.requests} (${webhooks.openAtEnd} open at the end) |
| ${withIds.length} runs-feed clients reconnecting at once with their Last-Event-ID after a replica restart | the API's engine calls in the 5 s after | ${sum(reconnect)} = ${per(sum(reconnect), withIds.length)} per client (${list(reconnect)}); ${reconnected} answered 200 |
| ${open} open SSE streams (${Math.ceil(STREAMS / 2)} on the runs feed, ${Math.floor(STREAMS / 2)} on ${idleRuns} idle runs' histories) | API memory after GC, before → with them | RSS ${mib(memBefore.rss)} → ${mib(memWith.rss)}, heap + external ${mib(memBefore.heapUsed + memBefore.external)} → ${mib(memWith.heapUsed + memWith.external)} (${((memWith.heapUsed + memWith.external - memBefore.heapUsed - memBefore.external) / Math.max(1, open) / 1024).toFixed(1)} KiB per stream) |
| | the API's engine calls per second while they are idle (${IDLE_WINDOW_MS / 1000} s; a history long-poll is counted when it ends) | ${(sum(idleCalls) / (IDLE_WINDOW_MS / 1000)).toFixed(1)} (${list(idleCalls)}); history long-polls open: ${hubs.inFlight ?? '—'} for ${hubs.hubs} runs |

Method: the webhook runs are \`approval\` runs started through the API with a webhook, then approved by direct signals;
the receiver takes each request and writes one byte every 2 s of a status line it never finishes, so every attempt
ends at the worker's 10 s deadline (docs/webhooks.md) and the delivery retries. Free slots come from the worker's
\`temporal_worker_task_slots_available\` (SERVICE_WORKER_METRICS_PORT). The feed clients take the first id their
stream sends, the API process is stopped and started again, and all of them connect at once; engine calls are the
API's \`flowport_engine_call_duration_seconds_count\` by method. Memory is \`process.memoryUsage()\` of the API process
after forced GCs.
`)
} finally {
  receiver.close()
  await stack.stop()
}
