/**
 * `npm run bench`: starts its own Temporal dev server and a worker serving the examples, then runs
 * each benchmark against a fresh API process (GC exposed) and writes its section of
 * bench/RESULTS.md. `npm run bench -- start` (or `BENCH=start`) runs only the start throughput and
 * /run overhead benchmark, `npm run bench -- sse` only the SSE one, `read` the read path (bench/read.ts),
 * `latency`, `cpu-per-run` (bench/cpu-per-run.ts; with a worktree path, A/B against it), `trace`, `observability`, `engine-outage`, `payloads`, `inspector` (bench/inspector.ts), `scale` (bench/scale.ts: many at once and a receiver that never answers; SCALE=0.1 for a tenth), `cluster`
 * (bench/cluster.ts, the PostgreSQL topology of docs/cluster.md) and `first-start` (bench/first-start.ts: `npm start` on an
 * empty Flowport cache) the benchmarks of those names (each with engines of its own);
 * the default is all of them.
 * Not a test: figures are measured and written down next to their targets, never asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, Connection } from '@temporalio/client'
import { formatMs } from '@flowport/core/duration'
import { startEngine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { readReport, runReadBenchmark } from './read.js'
import { runSseBenchmark, type SseResults } from './sse.js'
import { runStartBenchmark, startReport } from './start.js'
import { machineNote, SECTIONS, writeSection } from './results.js'
import { verdict } from './measure.js'
import { startApi, stopAll } from './stack.js'
import { waitForCatalog } from '../test/helpers/wait-for-catalog.js'

const CATALOG = 'flowport-bench'
const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 1000)
const START = {
  starts: Number(process.env.BENCH_START_N ?? 2000),
  concurrency: Number(process.env.BENCH_START_CONCURRENCY ?? 32),
  rounds: Number(process.env.BENCH_START_ROUNDS ?? 8),
  runSamples: Number(process.env.BENCH_RUN_SAMPLES ?? 300),
  quietShare: Number(process.env.BENCH_QUIET_SHARE ?? 0.15),
  budgetMs: Number(process.env.BENCH_START_BUDGET_S ?? 600) * 1000
}

const READ = {
  runs: Number(process.env.BENCH_READ_N ?? 500),
  repeats: Number(process.env.BENCH_READ_REPEATS ?? 3000),
  concurrency: Number(process.env.BENCH_READ_CONCURRENCY ?? 20),
  rounds: Number(process.env.BENCH_READ_ROUNDS ?? 5),
  streams: Number(process.env.BENCH_READ_STREAMS ?? 1000)
}

// A path among the arguments (it holds a `/`) is for the benchmarks, not a name: cpu-per-run's other worktree.
const args = process.argv.slice(2)
const paths = args.filter((a) => a.includes('/'))
const asked = (args.length ? args.filter((a) => !a.includes('/')) : (process.env.BENCH ?? '').split(',')).map((s) => s.trim()).filter(Boolean)
for (const name of asked) {
  if (!(SECTIONS as readonly string[]).includes(name)) throw new Error(`unknown benchmark ${name}: choose among ${SECTIONS.join(', ')}`)
}
// SSE first: the start benchmark leaves a few thousand idle runs (never polled) in the engine.
// The outage and trace benchmarks start engines and workers of their own, after the rest.
const selected = (['sse', 'read', 'start'] as const).filter((s) => asked.length === 0 || asked.includes(s))

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const ms = (v: number) => formatMs(v, 1)

function sseReport (r: SseResults, machine: string): string {
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

| Clients | eventTime → client | eventTime → raw engine long-poll (floor) | eventTime → API hub read | API read → written to the client's socket | Upstream calls | Exact |
|---|---|---|---|---|---|---|
${scaling.join('\n')}

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

/** The benchmarks that share one engine and worker (each with an API process of its own). */
async function runShared (): Promise<void> {
  const engine = await startEngine({ log: (m) => console.log(`engine: ${m}`) })
  const env = { ...process.env, TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: engine.namespace, SERVICE_CATALOG_ID: CATALOG }
  const worker = spawn(process.execPath, workerNodeArgs, { env: { ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'inherit', 'inherit'] })
  const connection = await Connection.connect({ address: engine.address })
  const temporal = new Client({ connection, namespace: engine.namespace })
  let api: ChildProcess | undefined

  try {
    await waitForCatalog(temporal, CATALOG)
    for (const name of selected) {
      // Each benchmark gets an API process of its own (the SSE one ends by closing its API).
      const machine = machineNote()
      const started = await startApi(env)
      api = started.child
      if (name === 'start') {
        console.log(`API at ${started.api.base}; start benchmark: ${JSON.stringify(START)}`)
        const results = await runStartBenchmark(started.api, {
          address: engine.address,
          namespace: engine.namespace,
          taskQueue: CATALOG,
          ...START,
          pids: { engine: engine.process.pid ?? 0, worker: worker.pid ?? 0 }
        })
        // Everything measured, for a closer look than the section shows.
        const json = resolve(tmpdir(), 'flowport-bench-start.json')
        writeFileSync(json, JSON.stringify({ machine, results }, null, 2))
        console.log(`ratio ${results.throughput.ratio.toFixed(2)}, /run p50 overhead ${results.overhead.p50Difference.toFixed(1)} ms; all figures in ${json}`)
        writeSection('start', startReport(results, machine))
      } else if (name === 'read') {
        console.log(`API at ${started.api.base}; read benchmark: ${JSON.stringify(READ)}`)
        const results = await runReadBenchmark(started.api, temporal, { ...READ, taskQueue: CATALOG, address: engine.address, namespace: engine.namespace, pids: { engine: engine.process.pid ?? 0, worker: worker.pid ?? 0 } })
        const json = resolve(tmpdir(), 'flowport-bench-read.json')
        writeFileSync(json, JSON.stringify({ machine, results }, null, 2))
        console.log(`all read figures in ${json}`)
        writeSection('read', readReport(results, machine))
      } else {
        console.log(`API at ${started.api.base}; SSE benchmark: ${CLIENTS} clients`)
        const results = await runSseBenchmark(started.api, temporal, CATALOG, CLIENTS)
        console.log(JSON.stringify(results, null, 2))
        writeSection('sse', sseReport(results, machine))
      }
      console.log(`wrote the ${name} section of ${process.env.BENCH_RESULTS ?? 'bench/RESULTS.md'}`)
      // An exited process is skipped: stopping it again in `finally` does nothing.
      await stopAll([api])
    }
  } finally {
    await stopAll([api, worker])
    await connection.close()
    await engine.stop()
  }
}

if (selected.length > 0) await runShared()

// The outage benchmark kills and restarts an engine of its own, so it runs alone, after the rest.
const sectionOf = { 'cpu-per-run': 'cpu-per-run', 'engine-outage': 'engine-outage', 'trace-overhead': 'trace', latency: 'latency', observability: 'observability', 'payload-codec': 'payloads', inspector: 'inspector', cluster: 'cluster', 'first-start': 'first-start', scale: 'scale' } as const
for (const name of ['cpu-per-run', 'engine-outage', 'trace-overhead', 'latency', 'observability', 'payload-codec', 'inspector', 'cluster', 'first-start', 'scale'] as const) {
  if (asked.length > 0 && !asked.includes(sectionOf[name])) continue
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), ...paths], { stdio: 'inherit' })
  const code = await new Promise<number | null>((done) => child.once('exit', done))
  if (code !== 0) throw new Error(`bench/${name}.ts exited with ${code}`)
}
