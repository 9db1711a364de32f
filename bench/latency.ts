/**
 * `npm run bench -- latency`: run latency with the engine launcher's settings against the Temporal
 * server's own defaults, side by side in one run (docs/performance.md). Two dev stacks like
 * `npm start` (a SQLite file, one worker serving the examples, the API in its own process), one
 * per setting, both up for the whole run; every measurement alternates between them round by
 * round so that both see the same machine. Measures:
 * - `POST /workflow/run` of `hello`, sequential (client-observed p50/p99);
 * - the per-step overhead of a 10-step `pipeline` run, with local and with regular steps:
 *   (started → closed − Σ step times) / 10, from the run's history;
 * - start throughput: `POST /workflow/start` of `hello`, 32 in flight, the worker running them;
 * - SSE event-to-client latency with 1 and with 1,000 clients following one `sleepy` run.
 * Writes the `latency` section of bench/RESULTS.md; measured, never asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { tsToMs } from '@temporalio/common/lib/time.js'
import { ENGINE_SERVER_DEFAULTS, startEngine, type Engine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { closedLoop, f1, now, percentiles, verdict, type Percentiles } from './measure.js'
import { machineNote, writeSection } from './results.js'
import { livePhase } from './sse.js'
import { startApi, waitForCatalog, type Api } from './stack.js'

const ROUNDS = Number(process.env.LATENCY_ROUNDS ?? 5)
const RUNS = Number(process.env.LATENCY_RUNS ?? 40)
const PIPELINES = Number(process.env.LATENCY_PIPELINES ?? 10)
const STARTS = Number(process.env.LATENCY_STARTS ?? 400)
const SSE_CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 1000)
const CATALOG = 'bench-latency'

type Setting = 'before' | 'after'
const SETTINGS: Setting[] = ['before', 'after']

interface Stack { engine: Engine, worker: ChildProcess, api: Api, apiProcess: ChildProcess, client: Client, connection: Connection }

async function startStack (setting: Setting): Promise<Stack> {
  const dbFile = join(mkdtempSync(join(tmpdir(), `flowport-bench-latency-${setting}-`)), 'temporal.db')
  const engine = await startEngine(setting === 'before'
    ? { dbFile, dynamicConfig: ENGINE_SERVER_DEFAULTS, sqlitePragmas: [] }
    : { dbFile })
  const env = { ...process.env, TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: engine.namespace, SERVICE_CATALOG_ID: CATALOG, LOG_LEVEL: 'warn' }
  const worker = spawn(process.execPath, workerNodeArgs, { env: { ...env, SERVICE_TRACE_ENABLED: 'false' }, stdio: ['ignore', 'inherit', 'inherit'] })
  const connection = await Connection.connect({ address: engine.address })
  const client = new Client({ connection, namespace: engine.namespace })
  await waitForCatalog(client, CATALOG)
  const { api, child } = await startApi(env)
  return { engine, worker, api, apiProcess: child, client, connection }
}

async function stopStack (s: Stack): Promise<void> {
  for (const child of [s.apiProcess, s.worker]) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    await new Promise((done) => { child.once('exit', done); child.kill('SIGTERM') })
  }
  await s.connection.close()
  await s.engine.stop()
}

async function post (api: Api, path: string, body: unknown): Promise<{ workflowId: string, runId: string, status?: string }> {
  const res = await fetch(`${api.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = await res.json() as { workflowId: string, runId: string, status?: string }
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`)
  return json
}

/** Started → closed, minus the steps' own times (local: their result's times; regular: started → completed), per step. */
async function stepOverhead (client: Client, workflowId: string, runId: string, steps: number): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []
  const at = (e: (typeof events)[number]) => tsToMs(e.eventTime!)
  let stepMs = 0
  const started = new Map<string, number>()
  for (const e of events) {
    const marker = e.markerRecordedEventAttributes
    if (marker) {
      const result = JSON.parse(Buffer.from(marker.details!.result!.payloads![0].data!).toString()) as { startTime: string, endTime: string }
      stepMs += Date.parse(result.endTime) - Date.parse(result.startTime)
    }
    if (e.activityTaskStartedEventAttributes) started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), at(e))
    if (e.activityTaskCompletedEventAttributes) stepMs += at(e) - started.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId))!
  }
  return (at(events.at(-1)!) - at(events[0]) - stepMs) / steps
}

const stacks = {} as Record<Setting, Stack>
const samples = {
  hello: { before: [] as number[], after: [] as number[] },
  local: { before: [] as number[], after: [] as number[] },
  regular: { before: [] as number[], after: [] as number[] },
  starts: { before: [] as number[], after: [] as number[] }
}
const sse: Record<Setting, Array<{ clients: number, latency: { p50: number, p99: number }, raw: { p50: number, p99: number }, exact: boolean }>> = { before: [], after: [] }
const machine = machineNote()

try {
  for (const setting of SETTINGS) stacks[setting] = await startStack(setting)
  // Warm both: the worker's first runs load its workflow bundle.
  for (const setting of SETTINGS) for (let i = 0; i < 5; i++) await post(stacks[setting].api, '/workflow/run', { workflowName: 'pipeline', input: { stages: 2, local: i % 2 === 0 } })

  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? SETTINGS : [...SETTINGS].reverse()
    for (const setting of order) {
      const { api, client } = stacks[setting]
      for (let i = 0; i < RUNS; i++) {
        const t = now()
        await post(api, '/workflow/run', { workflowName: 'hello', input: { name: 'bench' } })
        samples.hello[setting].push(now() - t)
      }
      for (let i = 0; i < PIPELINES; i++) {
        for (const local of [true, false]) {
          const run = await post(api, '/workflow/run', { workflowName: 'pipeline', input: { stages: 10, local } })
          samples[local ? 'local' : 'regular'][setting].push(await stepOverhead(client, run.workflowId, run.runId, 10))
        }
      }
      console.log(`round ${round + 1}/${ROUNDS} ${setting}: hello p50 ${f1(percentiles(samples.hello[setting]).p50)} ms`)
    }
  }
  // Throughput last: its runs would otherwise still be running while the latency is measured.
  for (let round = 0; round < ROUNDS; round++) {
    for (const setting of round % 2 === 0 ? SETTINGS : [...SETTINGS].reverse()) {
      const { api, client } = stacks[setting]
      const started: string[] = []
      const loop = await closedLoop(STARTS, 32, async () => { started.push((await post(api, '/workflow/start', { workflowName: 'hello', input: { name: 'load' } })).workflowId) })
      samples.starts[setting].push(STARTS / (loop.ms / 1000))
      // The next round, on either stack, begins once these runs are done.
      await Promise.all(started.map(async (id) => await client.workflow.getHandle(id).result()))
    }
  }
  for (const clients of [1, SSE_CLIENTS]) {
    for (const setting of SETTINGS) {
      const { api, client } = stacks[setting]
      const live = await livePhase({ base: api.base, call: api.call }, client, CATALOG, clients, clients === 1 ? 20 : 10)
      sse[setting].push({ clients, latency: live.latency, raw: live.raw, exact: live.exact })
      console.log(`SSE ${clients} client(s), ${setting}: p50 ${f1(live.latency.p50)} ms`)
    }
  }
} finally {
  for (const setting of SETTINGS) if (stacks[setting]) await stopStack(stacks[setting])
}

const p = (values: number[]): Percentiles => percentiles(values)
const pair = (k: keyof typeof samples, pick: (x: Percentiles) => number) => SETTINGS.map((s) => f1(pick(p(samples[k][s]))))
const hello = { before: p(samples.hello.before), after: p(samples.hello.after) }
const local = { before: p(samples.local.before), after: p(samples.local.after) }
const regular = { before: p(samples.regular.before), after: p(samples.regular.after) }
const starts = { before: p(samples.starts.before), after: p(samples.starts.after) }
const sseRow = (clients: number) => {
  const [b, a] = SETTINGS.map((s) => sse[s].find((x) => x.clients === clients)!)
  return `| SSE event-to-client p50 (p99), ${clients} client${clients === 1 ? '' : 's'} following a \`sleepy\` run | ≤ 20 ms | ${f1(b.latency.p50)} (${f1(b.latency.p99)}) ms | **${f1(a.latency.p50)}** (${f1(a.latency.p99)}) ms; engine floor ${f1(a.raw.p50)} ms${a.exact ? '' : ', **events lost**'} | ${verdict(a.latency.p50 <= 20 && a.exact)} |`
}

writeSection('latency', `## Run latency: the engine launcher's settings against Temporal's defaults (issue 18)

${machine}
Two dev stacks like \`npm start\` (SQLite file, one worker, the API in its own process), one with the Temporal server's
defaults and the SQLite file in its default journal mode ("before"), one as the engine launcher starts it now ("after":
\`${Object.keys(ENGINE_SERVER_DEFAULTS).join('`, `')}\` tuned, WAL journal; docs/performance.md), both up for the whole run;
the measurements alternate between them, ${ROUNDS} rounds.

| Figure | Goal | Before | After | |
|---|---|---|---|---|
| \`POST /workflow/run\` of \`hello\` (one regular step), p50 (p99), ${hello.after.samples} sequential runs each | p50 ≤ 30 ms | ${f1(hello.before.p50)} (${f1(hello.before.p99)}) ms | **${f1(hello.after.p50)}** (${f1(hello.after.p99)}) ms | ${verdict(hello.after.p50 <= 30)} |
| Per-step overhead of a 10-step \`pipeline\`, local steps, p50 (p99) of ${local.after.samples} runs | ≤ 5 ms | ${f1(local.before.p50)} (${f1(local.before.p99)}) ms | **${f1(local.after.p50)}** (${f1(local.after.p99)}) ms | ${verdict(local.after.p50 <= 5)} |
| The same with regular steps (activities) | — | ${f1(regular.before.p50)} (${f1(regular.before.p99)}) ms | ${f1(regular.after.p50)} (${f1(regular.after.p99)}) ms | |
| Start throughput, \`POST /workflow/start\` of \`hello\`, 32 in flight, median of ${starts.after.samples} rounds of ${STARTS} | not lower | ${pair('starts', (x) => x.p50)[0]} starts/s | **${pair('starts', (x) => x.p50)[1]}** starts/s | ${verdict(starts.after.p50 >= starts.before.p50 * 0.95)} |
${sseRow(1)}
${sseRow(SSE_CLIENTS)}

Per-step overhead = (started → closed − the steps' own time) ÷ 10, from each run's history: a regular step's own time is
its ActivityTaskStarted → Completed, a local step's the times its result carries. The throughput verdict allows 5 % of noise.
The SSE clients run in the benchmark process on the same ${cpus().length} cores as the API, the engine and the worker: with 1,000 of them
every event costs 1,000 socket writes in the API and 1,000 reads here (bench/RESULTS.md, SSE section, splits it).
`)
console.log('wrote the latency section of bench/RESULTS.md')
