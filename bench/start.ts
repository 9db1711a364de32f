/**
 * `npm run bench -- start`: start throughput (bench/start-throughput.ts) and /workflow/run overhead
 * (bench/run-overhead.ts), always measured side by side against the raw @temporalio/client on the
 * same engine, task queue and concurrency, after one shared warm-up; and their section of
 * bench/RESULTS.md. Targets: throughput ratio ≥ 0.85, p50 overhead ≤ 5 ms.
 */
import { loadavg } from 'node:os'
import { closedLoop, f1, f2, median, verdict } from './measure.js'
import { measureRunOverhead, overheadReport, type Overhead } from './run-overhead.js'
import { openStartSession, type StartBenchOptions } from './start-session.js'
import type { Api } from './stack.js'
import { measureThroughput, throughputReport, type Throughput } from './start-throughput.js'

export interface StartResults {
  options: StartBenchOptions
  throughput: Throughput
  overhead: Overhead
  loadBefore: number[]
  loadAfter: number[]
  warmup: { starts: number, runs: number }
}

export async function runStartBenchmark (api: Api, opts: StartBenchOptions): Promise<StartResults> {
  const loadBefore = loadavg()
  const session = await openStartSession(api, opts)
  const { raw, input, rawOptions, post, apiRun, rawRun, drain } = session
  try {
    // Warm-up: JIT, connections (all of the pool's), the API's ajv validators and catalog caches.
    const warmStarts = Math.max(opts.concurrency * 4, 200)
    const warmRuns = 30
    const body = JSON.stringify({ workflowName: 'hello', catalog: opts.taskQueue, input })
    await closedLoop(warmStarts, opts.concurrency, async () => { await post('/workflow/start', body) })
    await closedLoop(warmStarts, opts.concurrency, async () => { await raw.workflow.start('hello', { ...rawOptions(), taskQueue: opts.taskQueue }) })
    for (let i = 0; i < warmRuns; i++) { await apiRun(); await rawRun() }
    await drain()

    // 1. Throughput, with the worker running the started workflows, as in production. (Starts on a task
    // queue nobody polls, measured here before, no longer exist: the API answers them 503 CatalogNotAvailableError.)
    const throughput = await measureThroughput(session, opts.taskQueue)

    // 2. /workflow/run overhead: sequential pairs, the order alternating.
    const overhead = await measureRunOverhead(session)
    return { options: opts, throughput, overhead, loadBefore, loadAfter: loadavg(), warmup: { starts: warmStarts, runs: warmRuns } }
  } finally {
    await session.close()
  }
}

const figure = (x: Throughput) => `**${f2(x.ratio)}** (API ${x.api.perSecond.toFixed(0)} starts/s, raw ${x.raw.perSecond.toFixed(0)} starts/s` +
  `${x.pairsQuiet > 0 ? `, ${x.pairsQuiet} quiet pairs of rounds` : ', **no quiet pair: all pairs**'}: per pair median ${f2(median(x.pairRatios))}, ` +
  `${f2(Math.min(...x.pairRatios))} to ${f2(Math.max(...x.pairRatios))}; over all ${x.pairsTried} pairs measured ${f2(x.ratioAllPairs)})`

export function startReport (r: StartResults, machine: string): string {
  const t = r.throughput
  const o = r.overhead
  return `## Start throughput and /run overhead

${machine}

| Figure | Target | Measured | |
|---|---|---|---|
| Start throughput, \`POST /workflow/start\` ÷ raw \`client.workflow.start\`, ${t.starts} starts each, ${t.concurrency} in flight, the worker running the started \`hello\` runs | ≥ 0.85 | ${figure(t)} | ${verdict(t.ratio >= 0.85)} |
| \`/workflow/run\` p50 overhead over raw \`client.workflow.execute\`, ${o.samples} sequential runs each | ≤ 5 ms | **${f1(o.p50Difference)} ms** (API p50 ${f1(o.api.p50)} ms, raw p50 ${f1(o.raw.p50)} ms; median of paired differences ${f1(o.pairedMedian)} ms) | ${verdict(o.p50Difference <= 5)} |

${throughputReport(t, r.options.quietShare, r.options.budgetMs, o.split.rawStartCall.p50)}
${overheadReport(o)}
### Method

- \`npm run bench -- start\` (bench/start.ts, bench/start-throughput.ts, bench/run-overhead.ts): the benchmark's own Temporal dev server, one worker serving the examples on
  catalog \`flowport-bench\`, the API in its own process (\`LOG_LEVEL=warn\`), the raw client on its own gRPC connection in
  the benchmark process. Both sides start \`hello\` with \`{"name":"Ada"}\` on the same task queue with the same id policies
  (random UUID ids, allow-duplicate reuse, fail on conflict), so the engine does the same work.
- Warm-up before measuring: ${r.warmup.starts} starts per side at full concurrency (opens every pooled connection,
  compiles the validators, fills the catalog cache) and ${r.warmup.runs} runs per side.
- Throughput: a closed loop keeps ${t.concurrency} starts in flight through one undici \`Pool\` of ${t.concurrency} keep-alive connections
  (side A, \`POST /workflow/start\`) or on the raw client (side B). Starts/s = starts ÷ summed round wall time of that side.
  The worker runs the started workflows during the round, as in production, and the next round
  waits until they are closed (visibility count), so both sides meet the same engine state. "Other work" = the machine's
  busy time not spent by the engine, worker, API or benchmark process.
- Overhead: ${o.samples} pairs of sequential runs, the order inside a pair alternating; the API side is \`POST /workflow/run\`
  until its JSON result is read, the raw side \`client.workflow.execute\` (start, then long-poll of the close event, as the
  API does). The API process times each request (\`http.server.request.start\` → \`response.finish\` diagnostics channels)
  and each engine call (its client's gRPC service methods, wrapped by bench/api-process.ts); the benchmark wraps the raw
  client's the same way. The split rows are per-sample differences, so their percentiles do not add up exactly.
- Load average before / after: ${r.loadBefore.map(f1).join(' / ')} → ${r.loadAfter.map(f1).join(' / ')}. Profile the API process with
  \`BENCH_API_PROFILE=<dir> npm run bench -- start\` (a .cpuprofile written when it exits).
`
}
