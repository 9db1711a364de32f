/**
 * `npm run bench -- latency`: run latency with the engine launcher's settings against the Temporal
 * server's own defaults, two dev stacks side by side in one run (docs/performance.md), with the
 * bare SDK's and a bare SSE fan-out's floor beside them (bench/bare-sdk/, bench/bare-fanout.ts);
 * what each figure is and how: the section's note below. Measured, never asserted.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Client } from '@temporalio/client'
import { tsToMs } from '@temporalio/common/lib/time.js'
import { ENGINE_SERVER_DEFAULTS } from '../cli/engine.js'
import { closedLoop, f1, interleaved, now, percentiles, verdict, type Percentiles } from './measure.js'
import { machineNote, writeSection } from './results.js'
import { livePhase } from './sse.js'
import { post as postJson, startStack, type Api, type Stack } from './stack.js'

const ROUNDS = Number(process.env.LATENCY_ROUNDS ?? 5)
const RUNS = Number(process.env.LATENCY_RUNS ?? 40)
const PIPELINES = Number(process.env.LATENCY_PIPELINES ?? 10)
const STARTS = Number(process.env.LATENCY_STARTS ?? 400)
const SSE_CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 1000)
const SSE_ROUNDS = Number(process.env.LATENCY_SSE_ROUNDS ?? 3)
const CATALOG = 'bench-latency'

type Setting = 'before' | 'after'
const SETTINGS: Setting[] = ['before', 'after']

const BARE_QUEUE = 'bench-bare-sdk'

type LatencyStack = Omit<Stack, 'api'> & { api: Api, fanout?: Api }

async function startLatencyStack (setting: Setting): Promise<LatencyStack> {
  const dbFile = join(mkdtempSync(join(tmpdir(), `flowport-bench-latency-${setting}-`)), 'temporal.db')
  const stack = await startStack([CATALOG], {
    engine: setting === 'before' ? { dbFile, dynamicConfig: ENGINE_SERVER_DEFAULTS, sqlitePragmas: [] } : { dbFile },
    workerEnv: { SERVICE_TRACE_ENABLED: 'false' }
  })
  if (setting === 'after') {
    const bare = fileURLToPath(new URL('./bare-sdk/worker.ts', import.meta.url))
    stack.children.push(spawn(process.execPath, ['--import', 'tsx', bare], { env: { ...stack.env(CATALOG), TASK_QUEUE: BARE_QUEUE }, stdio: ['ignore', 'ignore', 'inherit'] }))
  }
  const { api } = await stack.api(CATALOG)
  const fanout = setting === 'after' ? (await stack.api(CATALOG, {}, 'bench/bare-fanout.ts')).api : undefined
  return { ...stack, api, fanout }
}

const post = async (api: Api, path: string, body: unknown) => await postJson<{ workflowId: string, runId: string, status?: string }>(api.base, path, body)

let bareRuns = 0
/** A run of a bare-SDK workflow through the raw client: its client-observed time and its ids. */
async function bare (client: Client, workflowType: string, args: unknown[]): Promise<{ ms: number, workflowId: string, runId: string }> {
  const workflowId = `bare-${bareRuns++}-${Date.now()}`
  const t = now()
  const handle = await client.workflow.start(workflowType, { taskQueue: BARE_QUEUE, workflowId, args })
  await handle.result()
  return { ms: now() - t, workflowId, runId: handle.firstExecutionRunId }
}

/** The bare worker bundles its workflows at start: wait until it runs them. */
async function waitForBare (client: Client): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await client.workflow.execute('bareHello', { taskQueue: BARE_QUEUE, workflowId: `bare-warm-${Date.now()}`, args: ['warm'], workflowExecutionTimeout: '5s' })
      return
    } catch (err) {
      if (i === 60) throw err
    }
  }
}

/** Started → closed of a run, from its history. */
async function runMs (client: Client, workflowId: string, runId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []
  return tsToMs(events.at(-1)!.eventTime!) - tsToMs(events[0].eventTime!)
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

const stacks = {} as Record<Setting, LatencyStack>
const bySetting = (): Record<Setting, number[]> => ({ before: [], after: [] })
const samples = { hello: bySetting(), local: bySetting(), regular: bySetting(), starts: bySetting() }
/** On the "after" stack only: the bare SDK's figures, and 1- and 10-stage local runs (started → closed) of both. */
const floor = { hello: [] as number[], local: [] as number[], fp1: [] as number[], fp10: [] as number[], bare1: [] as number[], bare10: [] as number[] }
/** Per server and number of clients: the pooled latency samples of every round, and whether every client got every event once. */
interface SseFigure { latency: number[], raw: number[], exact: boolean }
const sse: Record<Setting | 'bare', Map<number, SseFigure>> = { before: new Map(), after: new Map(), bare: new Map() }
const machine = machineNote()

try {
  for (const setting of SETTINGS) stacks[setting] = await startLatencyStack(setting)
  // Warm both: the worker's first runs load its workflow bundle.
  for (const setting of SETTINGS) for (let i = 0; i < 5; i++) await post(stacks[setting].api, '/workflow/run', { workflowName: 'pipeline', input: { stages: 2, local: i % 2 === 0 } })
  await waitForBare(stacks.after.client)
  for (let i = 0; i < 5; i++) await bare(stacks.after.client, 'barePipeline', [2, i % 2 === 0])

  await interleaved(ROUNDS, SETTINGS, async (setting, round) => {
    const { api, client } = stacks[setting]
    const withFloor = setting === 'after'
    for (let i = 0; i < RUNS; i++) {
      const t = now()
      await post(api, '/workflow/run', { workflowName: 'hello', input: { name: 'bench' } })
      samples.hello[setting].push(now() - t)
      if (withFloor) floor.hello.push((await bare(client, 'bareHello', ['bench'])).ms)
    }
    for (let i = 0; i < PIPELINES; i++) {
      for (const local of [true, false]) {
        const run = await post(api, '/workflow/run', { workflowName: 'pipeline', input: { stages: 10, local } })
        samples[local ? 'local' : 'regular'][setting].push(await stepOverhead(client, run.workflowId, run.runId, 10))
        if (withFloor && local) floor.fp10.push(await runMs(client, run.workflowId, run.runId))
      }
      if (!withFloor) continue
      const bare10 = await bare(client, 'barePipeline', [10, true])
      floor.local.push(await stepOverhead(client, bare10.workflowId, bare10.runId, 10))
      floor.bare10.push(await runMs(client, bare10.workflowId, bare10.runId))
      const fp1 = await post(api, '/workflow/run', { workflowName: 'pipeline', input: { stages: 1, local: true } })
      floor.fp1.push(await runMs(client, fp1.workflowId, fp1.runId))
      const bare1 = await bare(client, 'barePipeline', [1, true])
      floor.bare1.push(await runMs(client, bare1.workflowId, bare1.runId))
    }
    console.log(`round ${round + 1}/${ROUNDS} ${setting}: hello p50 ${f1(percentiles(samples.hello[setting]).p50)} ms`)
  })
  // Throughput last: its runs would otherwise still be running while the latency is measured.
  await interleaved(ROUNDS, SETTINGS, async (setting) => {
    const { api, client } = stacks[setting]
    const started: string[] = []
    const loop = await closedLoop(STARTS, 32, async () => { started.push((await post(api, '/workflow/start', { workflowName: 'hello', input: { name: 'load' } })).workflowId) })
    samples.starts[setting].push(STARTS / (loop.ms / 1000))
    // The next round, on either stack, begins once these runs are done.
    await Promise.all(started.map(async (id) => await client.workflow.getHandle(id).result()))
  })
  for (const clients of [1, SSE_CLIENTS]) {
    const steps = clients === 1 ? 20 : 10
    // The bare fan-out server next to Flowport's "after" API in every round, on the same stack and engine.
    const servers = [
      ...SETTINGS.map((name) => ({ name, api: stacks[name].api, client: stacks[name].client })),
      { name: 'bare' as const, api: stacks.after.fanout!, client: stacks.after.client }
    ]
    for (const { name } of servers) sse[name].set(clients, { latency: [], raw: [], exact: true })
    await interleaved(SSE_ROUNDS, servers, async ({ name, api, client }, round) => {
      const live = await livePhase(api, client, CATALOG, clients, steps)
      const figure = sse[name].get(clients)!
      figure.latency.push(...live.samples.latency)
      figure.raw.push(...live.samples.raw)
      figure.exact &&= live.exact
      console.log(`SSE ${clients} client(s), round ${round + 1}/${SSE_ROUNDS}, ${name}: p50 ${f1(live.latency.p50)} ms, raw long-poll ${f1(live.raw.p50)} ms${live.exact ? '' : ', events lost'}`)
    })
  }
} finally {
  for (const setting of SETTINGS) if (stacks[setting]) await stacks[setting].stop()
}

const p = (values: number[]): Percentiles => percentiles(values)
const [hello, local, regular, starts] = (['hello', 'local', 'regular', 'starts'] as const).map((k) => ({ before: p(samples[k].before), after: p(samples[k].after) }))
const bareHello = p(floor.hello)
const bareLocal = p(floor.local)
/** The cost of one more local step: (10-stage run − 1-stage run) ÷ 9, from the medians. */
const marginal = (ten: number[], one: number[]) => (p(ten).p50 - p(one).p50) / 9
const fixed = (ten: number[], one: number[]) => p(one).p50 - marginal(ten, one)
const sseRow = (clients: number) => {
  const [b, a, bare] = (['before', 'after', 'bare'] as const).map((s) => sse[s].get(clients)!)
  const lost = (x: SseFigure) => (x.exact ? '' : ', **events lost**')
  const pct = (x: SseFigure, bold = false) => {
    const q = p(x.latency)
    return `${bold ? `**${f1(q.p50)}**` : f1(q.p50)} (${f1(q.p99)}) ms${lost(x)}`
  }
  return `| SSE event-to-client p50 (p99), ${clients} client${clients === 1 ? '' : 's'} following a \`sleepy\` run, ${SSE_ROUNDS} runs each | ≤ 20 ms | ${pct(b)} | ${pct(a, true)} | ${pct(bare)} (bare fan-out); ${f1(p(a.raw).p50)} ms (one raw long-poll) | ${verdict(p(a.latency).p50 <= 20 && a.exact)} |`
}

writeSection('latency', `## Run latency: the engine launcher's settings against Temporal's defaults (issue 18)

${machine}
Two dev stacks like \`npm start\` (SQLite file, one worker, the API in its own process), one with the Temporal server's
defaults and the SQLite file in its default journal mode ("before"), one as the engine launcher starts it now ("after":
\`${Object.keys(ENGINE_SERVER_DEFAULTS).join('`, `')}\` tuned, WAL journal; docs/performance.md), both up for the whole run;
the measurements alternate between them, ${ROUNDS} rounds.

| Figure | Goal | Before | After | Floor, after: bare SDK; for SSE, bare fan-out | |
|---|---|---|---|---|---|
| \`POST /workflow/run\` of \`hello\` (one regular step), p50 (p99), ${hello.after.samples} sequential runs each | p50 ≤ 30 ms | ${f1(hello.before.p50)} (${f1(hello.before.p99)}) ms | **${f1(hello.after.p50)}** (${f1(hello.after.p99)}) ms | ${f1(bareHello.p50)} (${f1(bareHello.p99)}) ms | ${verdict(hello.after.p50 <= 30)} |
| Per-step overhead of a 10-step \`pipeline\`, local steps, p50 (p99) of ${local.after.samples} runs | ≤ 5 ms | ${f1(local.before.p50)} (${f1(local.before.p99)}) ms | **${f1(local.after.p50)}** (${f1(local.after.p99)}) ms | ${f1(bareLocal.p50)} (${f1(bareLocal.p99)}) ms | ${verdict(local.after.p50 <= 5)} |
| … of which one more local step (marginal) and the run's fixed part (started → closed) | — | | ${f1(marginal(floor.fp10, floor.fp1))} ms + ${f1(fixed(floor.fp10, floor.fp1))} ms | ${f1(marginal(floor.bare10, floor.bare1))} ms + ${f1(fixed(floor.bare10, floor.bare1))} ms | |
| The same with regular steps (activities) | — | ${f1(regular.before.p50)} (${f1(regular.before.p99)}) ms | ${f1(regular.after.p50)} (${f1(regular.after.p99)}) ms | | |
| Start throughput, \`POST /workflow/start\` of \`hello\`, 32 in flight, median of ${starts.after.samples} rounds of ${STARTS} | not lower | ${f1(starts.before.p50)} starts/s | **${f1(starts.after.p50)}** starts/s | | ${verdict(starts.after.p50 >= starts.before.p50 * 0.95)} |
${sseRow(1)}
${sseRow(SSE_CLIENTS)}

The floor column: the same workflows written against the bare Temporal SDK (bench/bare-sdk/: no Flowport runtime,
schemas, manifest or trace; the SDK's default worker options), on the "after" stack, run through the raw
\`@temporalio/client\` (no HTTP hop), alternating run by run with Flowport's. Whatever the floor column shows above a
goal, no worker code on this engine and machine can remove. For SSE, the floor is the same clients (\`livePhase\` of
bench/sse.ts, ${SSE_ROUNDS} runs each, next to Flowport's "after" API in every round, order alternating) fed by a bare fan-out
server (bench/bare-fanout.ts): node:http in its own process like the API, no Fastify, auth or hubs, one raw engine
long-poll per run writing each page of events as one pre-serialized frame (Flowport's own bytes and \`id:\`) to every
socket. What it shows above the goal, no SSE server on this engine, machine and client placement can remove. Beside it,
when one raw long-poll in the benchmark process sees the event (the engine's share, without any socket writes).

Per-step overhead = (started → closed − the steps' own time) ÷ 10, from each run's history: a regular step's own time is
its ActivityTaskStarted → Completed, a local step's the times its result carries. The throughput verdict allows 5 % of noise.
The SSE clients run in the benchmark process on the same ${cpus().length} cores as the API, the engine and the worker: with 1,000 of them
every event costs 1,000 socket writes in the API and 1,000 reads here (bench/RESULTS.md, SSE section, splits it).
`)
