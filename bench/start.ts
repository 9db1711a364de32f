/**
 * Start throughput and /workflow/run overhead (DESIGN.md §11), always measured side by side
 * against the raw @temporalio/client on the same engine, task queue and concurrency:
 * - throughput: N starts of `hello` with a fixed number in flight, (a) `POST /workflow/start`
 *   over HTTP keep-alive (undici Pool) and (b) `client.workflow.start`, in pairs of rounds
 *   (A B, B A, A B …, so a linear drift cancels); a pair during which other work took more than a
 *   set share of the shared machine is measured again. Twice: with the worker running the started
 *   runs (the figure of record), and on a task queue nobody polls (the engine records starts only).
 *   Target ratio ≥ 0.85.
 * - overhead: sequential `hello` runs, (a) `POST /workflow/run` and (b) `client.workflow.execute`
 *   (start + close-event long-poll), alternating pairs; target p50(a) − p50(b) ≤ 5 ms.
 * Besides wall time, each round records the CPU time every process spent (engine, worker, API,
 * benchmark; /proc) and the engine calls the API made, and each /run sample its server-side time
 * and engine-call time, so a missed target comes with where the time went.
 */
import { randomUUID } from 'node:crypto'
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { Pool } from 'undici'
import { Client, Connection } from '@temporalio/client'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import { CATALOG_MEMO_KEY, catalogWorkflowId } from '@flowport/worker/contract'

/** What the benchmark needs of the API process (bench/api-process.ts). */
export interface StartApi {
  base: string
  pid: number
  call: <T>(cmd: 'traceOn' | 'trace' | 'traceOff') => Promise<T>
}

export interface StartBenchOptions {
  address: string
  namespace: string
  taskQueue: string
  /** Starts per side (split over `rounds` rounds per side). */
  starts: number
  concurrency: number
  /** Quiet pairs of rounds (one round per side each) to collect. */
  rounds: number
  /** Sequential /run samples per side. */
  runSamples: number
  /** A pair of rounds counts only if other work took at most this share of the machine during it. */
  quietShare: number
  /** Time allowed per throughput variant to collect `rounds` quiet pairs. */
  budgetMs: number
  pids: { engine: number, worker: number }
}

type Side = 'api' | 'raw'
const PROCESSES = ['engine', 'worker', 'api', 'bench'] as const
type ProcessName = typeof PROCESSES[number]

export interface Percentiles { samples: number, p50: number, p90: number, p99: number, mean: number }

type Cpu = Record<ProcessName | 'others', number>

export interface Round {
  side: Side
  /** Index of the pair of rounds it belongs to. */
  pair: number
  /** Its pair ran on a quiet machine and counts in the figures. */
  accepted: boolean
  starts: number
  ms: number
  perSecond: number
  latency: Percentiles
  /** CPU ms per start during the round, by process, and the rest of the machine (other work on the shared host). */
  cpu: Cpu
  /** Same, from the round's start until the worker closed the started runs (with a worker only). */
  cpuToDrained?: Cpu
  /** Share of the machine's CPU capacity in use during the round, all processes. */
  machineBusy: number
  /** Share of it other work took (not the engine, worker, API or benchmark). */
  othersShare: number
  /** Engine calls the API made during the round, by gRPC method (api side only). */
  apiEngineCalls: Record<string, number>
}

export interface Throughput {
  /** `worker`: the worker runs the started workflows (the figure of record); `startsOnly`: nobody polls the task queue. */
  variant: 'worker' | 'startsOnly'
  taskQueue: string
  starts: number
  concurrency: number
  /** Every round measured, quiet or not. */
  rounds: Round[]
  pairsTried: number
  pairsQuiet: number
  /** Totals, ratio, CPU and busy shares: over the quiet pairs (over all of them if none was quiet). */
  api: { starts: number, ms: number, perSecond: number }
  raw: { starts: number, ms: number, perSecond: number }
  ratio: number
  /** The ratio over every pair measured, noisy ones included. */
  ratioAllPairs: number
  /** Ratios of the pairs used, to show the spread. */
  pairRatios: number[]
  cpu: Record<Side, Cpu>
  cpuToDrained?: Record<Side, Cpu>
  machineBusy: Record<Side, number>
  othersShare: Record<Side, number>
  /** Catalog describes the API made over the API rounds of `catalogStarts` starts (all rounds). */
  catalogDescribes: number
  catalogStarts: number
}

export interface Overhead {
  samples: number
  api: Percentiles
  raw: Percentiles
  p50Difference: number
  /** Median of per-pair differences (api − raw of the same pair). */
  pairedMedian: number
  /** Median split of an API sample: client/HTTP, API's own work, engine calls. */
  split: {
    apiServer: Percentiles
    apiHttpAndClient: Percentiles
    apiOwnWork: Percentiles
    apiEngine: Percentiles
    apiStartCall: Percentiles
    apiResultCall: Percentiles
    rawEngine: Percentiles
    rawStartCall: Percentiles
    rawResultCall: Percentiles
    rawClientWork: Percentiles
  }
  /** API samples that also described the catalog (cache misses of the 2 s catalog cache), and their p50. */
  catalogMisses: number
  catalogMissLatency?: number
  apiEngineCalls: Record<string, number>
  /** Where a `hello` run's own time goes, from its history's event times (medians of the last runs of each side). */
  anatomy: Record<Side, Anatomy>
  /** Every sample, in the order taken. */
  times: Record<Side, number[]>
}

export interface StartResults {
  options: StartBenchOptions
  throughput: Throughput
  startsOnly: Throughput
  overhead: Overhead
  loadBefore: number[]
  loadAfter: number[]
  warmup: { starts: number, runs: number }
}

// ---------- measuring helpers ----------

const now = () => performance.now()

function percentiles (values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN
  return { samples: values.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: values.reduce((a, b) => a + b, 0) / Math.max(1, values.length) }
}
const median = (values: number[]) => percentiles(values).p50

const CLK_TCK = (() => {
  try { return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100 } catch { return 100 }
})()
const jiffiesToMs = (j: number) => (j * 1000) / CLK_TCK

/** User + system CPU ms of a process (all its threads) so far. */
function processCpuMs (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return jiffiesToMs(Number(fields[11]) + Number(fields[12]))
  } catch { return NaN }
}

/** Busy and total CPU ms of the whole machine so far (all cores). */
function machineCpuMs (): { busy: number, total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]
  const v = line.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal (guest fields are included in user/nice)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0)
  const idle = v[3] + v[4]
  return { busy: jiffiesToMs(total - idle), total: jiffiesToMs(total) }
}

interface CpuSnapshot { procs: Record<ProcessName, number>, machine: { busy: number, total: number } }

function cpuSnapshot (pids: Record<ProcessName, number>): CpuSnapshot {
  const procs = Object.fromEntries(PROCESSES.map((p) => [p, processCpuMs(pids[p])])) as Record<ProcessName, number>
  return { procs, machine: machineCpuMs() }
}

/** CPU ms per operation of each process between two snapshots; "others" = the machine's busy time not spent by them. */
function cpuPerOp (a: CpuSnapshot, b: CpuSnapshot, per: number): Cpu {
  const cpu = {} as Cpu
  let ours = 0
  for (const p of PROCESSES) {
    const d = b.procs[p] - a.procs[p]
    ours += d
    cpu[p] = d / per
  }
  cpu.others = Math.max(0, b.machine.busy - a.machine.busy - ours) / per
  return cpu
}
/** Share of the machine's capacity that work other than our four processes took between two snapshots. */
function othersShare (a: CpuSnapshot, b: CpuSnapshot): number {
  const ours = PROCESSES.reduce((sum, p) => sum + b.procs[p] - a.procs[p], 0)
  return Math.max(0, b.machine.busy - a.machine.busy - ours) / Math.max(1, b.machine.total - a.machine.total)
}
const busyShare = (a: CpuSnapshot, b: CpuSnapshot) => (b.machine.busy - a.machine.busy) / Math.max(1, b.machine.total - a.machine.total)

function meanCpu (rounds: Round[], pick: (r: Round) => Cpu | undefined): Cpu {
  const keys = [...PROCESSES, 'others'] as const
  return Object.fromEntries(keys.map((k) => [k, rounds.reduce((a, r) => a + (pick(r)?.[k] ?? 0), 0) / rounds.length])) as Cpu
}

/** Engine calls of a client, timed: every method of its (namespace-injecting) service wrapper. */
interface EngineCall { name: string, at: number, ms: number }
function traceEngineCalls (connection: Connection, sink: EngineCall[]): void {
  const service = connection.workflowService as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const [name, fn] of Object.entries(service)) {
    if (typeof fn !== 'function') continue
    service[name] = async (...args: unknown[]) => {
      const at = now()
      try { return await fn(...args) } finally { sink.push({ name, at, ms: now() - at }) }
    }
  }
}

/** `n` operations, `concurrency` in flight at any time (closed loop); latency of each. */
async function closedLoop (n: number, concurrency: number, op: () => Promise<void>): Promise<{ ms: number, latencies: number[] }> {
  const latencies: number[] = []
  let next = 0
  let failure: unknown
  const started = now()
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, async () => {
    while (next < n && failure === undefined) {
      next++
      const t = now()
      try { await op() } catch (err) { failure ??= err; return }
      latencies.push(now() - t)
    }
  }))
  if (failure !== undefined) throw failure
  return { ms: now() - started, latencies }
}

/** Medians, in ms, of the steps of `hello` runs as the engine recorded them (event times). */
export interface Anatomy {
  runs: number
  /** Started → first workflow task picked up by the worker. */
  firstTaskDispatch: number
  /** The worker's first workflow task (runs the workflow code up to the step). */
  firstTask: number
  /** Step scheduled → picked up. */
  stepDispatch: number
  /** Step running in the worker. */
  step: number
  /** Step done → second workflow task picked up. */
  secondTaskDispatch: number
  /** The worker's second workflow task (returns the result). */
  secondTask: number
  /** Started → closed. */
  total: number
}

async function anatomyOf (client: Client, workflowIds: string[]): Promise<Anatomy> {
  const steps: Record<Exclude<keyof Anatomy, 'runs'>, number[]> = { firstTaskDispatch: [], firstTask: [], stepDispatch: [], step: [], secondTaskDispatch: [], secondTask: [], total: [] }
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? []
    const at = (type: number, nth = 0) => {
      const e = events.filter((x) => x.eventType === type)[nth]
      return e?.eventTime ? Number(e.eventTime.seconds) * 1000 + (e.eventTime.nanos ?? 0) / 1e6 : NaN
    }
    // Event types: 1 started, 2 completed, 5/6/7 workflow task scheduled/started/completed, 10/11/12 activity scheduled/started/completed.
    steps.firstTaskDispatch.push(at(6) - at(1))
    steps.firstTask.push(at(7) - at(6))
    steps.stepDispatch.push(at(11) - at(10))
    steps.step.push(at(12) - at(11))
    steps.secondTaskDispatch.push(at(6, 1) - at(12))
    steps.secondTask.push(at(7, 1) - at(6, 1))
    steps.total.push(at(2) - at(1))
  }
  return { runs: workflowIds.length, ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, median(v)])) } as Anatomy
}

// ---------- the benchmark ----------

export async function runStartBenchmark (api: StartApi, opts: StartBenchOptions): Promise<StartResults> {
  const loadBefore = loadavg()
  const pids: Record<ProcessName, number> = { engine: opts.pids.engine, worker: opts.pids.worker, api: api.pid, bench: process.pid }
  // A connection of its own, like the API's, so nothing else of the benchmark shares it.
  const connection = await Connection.connect({ address: opts.address })
  const rawCalls: EngineCall[] = []
  traceEngineCalls(connection, rawCalls)
  const raw = new Client({ connection, namespace: opts.namespace })
  const pool = new Pool(api.base, { connections: opts.concurrency, pipelining: 1, keepAliveTimeout: 120_000 })
  const input = { name: 'Ada' }
  const runBody = JSON.stringify({ workflowName: 'hello', input })

  const rawOptions = () => ({
    taskQueue: opts.taskQueue,
    workflowId: randomUUID(),
    args: [input],
    // What lib/start.ts asks for, so both sides make the same engine request.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL
  })

  async function post (path: string, body: string): Promise<unknown> {
    const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body })
    const json = await res.body.json()
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(json)}`)
    return json
  }
  const apiRun = async (): Promise<string> => {
    const result = await post('/workflow/run', runBody) as { status: string, workflowId: string }
    if (result.status !== 'completed') throw new Error(`/workflow/run: ${JSON.stringify(result)}`)
    return result.workflowId
  }
  const rawRun = async (): Promise<string> => {
    const options = rawOptions()
    await raw.workflow.execute('hello', options)
    return options.workflowId
  }

  /** Waits until the worker has finished every `hello` run started so far. */
  async function drain (): Promise<number> {
    const t = now()
    for (let i = 0; i < 1200; i++) {
      const { count } = await raw.workflow.count(`WorkflowType = "hello" AND ExecutionStatus = "Running" AND TaskQueue = "${opts.taskQueue}"`)
      if (count === 0) return now() - t
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    throw new Error('hello runs did not drain within 300 s')
  }

  /**
   * Alternating rounds (A B B A …) of starts on `catalog`; with `drainAfter`, each round is followed
   * by waiting until the worker closed its runs (so the next round meets the same engine state).
   */
  /** Share of the machine other work took over `ms` (our processes excluded), sampled now. */
  async function othersShareNow (ms: number): Promise<number> {
    const a = cpuSnapshot(pids)
    await new Promise((resolve) => setTimeout(resolve, ms))
    return othersShare(a, cpuSnapshot(pids))
  }

  /**
   * Pairs of rounds (A B, then B A, …) of starts on `catalog` until `opts.rounds` pairs ran while
   * the machine was quiet (other work ≤ `opts.quietShare` of it during both rounds) or the time
   * budget is spent; a noisy pair is measured again. With `drainAfter`, each round is followed by
   * waiting until the worker closed its runs, so the next round meets the same engine state.
   */
  async function throughputOf (variant: Throughput['variant'], catalog: string, drainAfter: boolean): Promise<Throughput> {
    const body = JSON.stringify({ workflowName: 'hello', catalog, input })
    const apiOp = async () => { await post('/workflow/start', body) }
    const rawOp = async () => { await raw.workflow.start('hello', { ...rawOptions(), taskQueue: catalog }) }
    const perRound = Math.ceil(opts.starts / opts.rounds)
    const deadline = now() + opts.budgetMs
    const rounds: Round[] = []
    let accepted = 0
    let pair = 0

    async function round (side: Side): Promise<Round> {
      await api.call('traceOn')
      const before = cpuSnapshot(pids)
      const { ms, latencies } = await closedLoop(perRound, opts.concurrency, side === 'api' ? apiOp : rawOp)
      const after = cpuSnapshot(pids)
      const trace = await api.call<ApiTrace>('trace')
      // The engine and the worker keep working on the started runs after the round.
      const cpuToDrained = drainAfter ? (await drain(), cpuPerOp(before, cpuSnapshot(pids), perRound)) : undefined
      return {
        side,
        pair,
        accepted: false,
        starts: perRound,
        ms,
        perSecond: perRound / (ms / 1000),
        latency: percentiles(latencies),
        cpu: cpuPerOp(before, after, perRound),
        cpuToDrained,
        machineBusy: busyShare(before, after),
        othersShare: othersShare(before, after),
        apiEngineCalls: trace.counts
      }
    }

    while (accepted < opts.rounds && now() < deadline) {
      // Wait for a quiet second before a pair rather than measure one that will be thrown away.
      while (now() < deadline && await othersShareNow(1000) > opts.quietShare) { /* other work is busy */ }
      const sides: Side[] = accepted % 2 === 0 ? ['api', 'raw'] : ['raw', 'api']
      const measured: Round[] = []
      for (const side of sides) measured.push(await round(side))
      const quiet = measured.every((r) => r.othersShare <= opts.quietShare)
      for (const r of measured) r.accepted = quiet
      if (quiet) accepted++
      rounds.push(...measured)
      console.log(`${variant} pair ${pair + 1} (${accepted}/${opts.rounds} quiet): ` + measured.map((r) =>
        `${r.side} ${r.perSecond.toFixed(0)} starts/s (p50 ${r.latency.p50.toFixed(0)} ms, busy ${(r.machineBusy * 100).toFixed(0)}%, other work ${(r.othersShare * 100).toFixed(0)}%)`).join(', ') +
        (quiet ? '' : ' — noisy, measured again'))
      pair++
    }
    // Figures from the quiet pairs; if none was quiet within the budget, from all of them (and said so).
    const used = accepted > 0 ? rounds.filter((r) => r.accepted) : rounds
    const of = (side: Side, from = used) => from.filter((r) => r.side === side)
    const total = (side: Side, from = used) => {
      const starts = of(side, from).reduce((a, r) => a + r.starts, 0)
      const ms = of(side, from).reduce((a, r) => a + r.ms, 0)
      return { starts, ms, perSecond: starts / (ms / 1000) }
    }
    const pairRatios: number[] = []
    for (let i = 0; i + 1 < used.length; i += 2) {
      const [a, b] = used[i].side === 'api' ? [used[i], used[i + 1]] : [used[i + 1], used[i]]
      pairRatios.push(a.perSecond / b.perSecond)
    }
    const apiTotal = total('api')
    const rawTotal = total('raw')
    const mean = (xs: Round[], f: (r: Round) => number) => xs.reduce((a, r) => a + f(r), 0) / Math.max(1, xs.length)
    return {
      variant,
      taskQueue: catalog,
      starts: apiTotal.starts,
      concurrency: opts.concurrency,
      rounds,
      pairsTried: pair,
      pairsQuiet: accepted,
      api: apiTotal,
      raw: rawTotal,
      ratio: apiTotal.perSecond / rawTotal.perSecond,
      ratioAllPairs: total('api', rounds).perSecond / total('raw', rounds).perSecond,
      pairRatios,
      cpu: { api: meanCpu(of('api'), (r) => r.cpu), raw: meanCpu(of('raw'), (r) => r.cpu) },
      cpuToDrained: drainAfter ? { api: meanCpu(of('api'), (r) => r.cpuToDrained), raw: meanCpu(of('raw'), (r) => r.cpuToDrained) } : undefined,
      machineBusy: { api: mean(of('api'), (r) => r.machineBusy), raw: mean(of('raw'), (r) => r.machineBusy) },
      othersShare: { api: mean(of('api'), (r) => r.othersShare), raw: mean(of('raw'), (r) => r.othersShare) },
      catalogDescribes: rounds.reduce((a, r) => a + (r.apiEngineCalls.describeWorkflowExecution ?? 0), 0),
      catalogStarts: of('api', rounds).reduce((a, r) => a + r.starts, 0)
    }
  }

  try {
    // A second catalog, published by hand with the same content on a task queue no worker polls:
    // its starts cost the engine the start alone (the runs wait, never executed).
    const published = await raw.workflow.getHandle(catalogWorkflowId(opts.taskQueue)).describe()
    const idleQueue = `${opts.taskQueue}-unpolled`
    await raw.workflow.start('bench-unpolled-catalog', {
      taskQueue: idleQueue,
      workflowId: catalogWorkflowId(idleQueue),
      memo: { [CATALOG_MEMO_KEY]: { ...(published.memo?.[CATALOG_MEMO_KEY] as object), catalog: idleQueue } }
    })

    // Warm-up: JIT, connections (all of the pool's), the API's ajv validators and catalog caches.
    const warmStarts = Math.max(opts.concurrency * 4, 200)
    const warmRuns = 30
    for (const catalog of [opts.taskQueue, idleQueue]) {
      const body = JSON.stringify({ workflowName: 'hello', catalog, input })
      await closedLoop(warmStarts, opts.concurrency, async () => { await post('/workflow/start', body) })
      await closedLoop(warmStarts, opts.concurrency, async () => { await raw.workflow.start('hello', { ...rawOptions(), taskQueue: catalog }) })
    }
    for (let i = 0; i < warmRuns; i++) { await apiRun(); await rawRun() }
    await drain()

    // 1. Throughput: with the worker running the started workflows (the figure of record), then starts alone.
    const throughput = await throughputOf('worker', opts.taskQueue, true)
    const startsOnly = await throughputOf('startsOnly', idleQueue, false)

    // 2. /workflow/run overhead: sequential pairs, the order alternating.
    await api.call('traceOn')
    const apiTimes: number[] = []
    const rawTimes: number[] = []
    const rawSplit: { start: number, result: number, total: number }[] = []
    const ids: Record<Side, string[]> = { api: [], raw: [] }
    for (let i = 0; i < opts.runSamples; i++) {
      for (const side of (i % 2 === 0 ? ['api', 'raw'] : ['raw', 'api']) as Side[]) {
        if (side === 'api') {
          const t = now()
          const id = await apiRun()
          apiTimes.push(now() - t)
          ids.api.push(id)
        } else {
          rawCalls.length = 0
          const t = now()
          const id = await rawRun()
          const total = now() - t
          rawTimes.push(total)
          ids.raw.push(id)
          rawSplit.push({
            start: rawCalls.filter((c) => c.name === 'startWorkflowExecution').reduce((a, c) => a + c.ms, 0),
            result: rawCalls.filter((c) => c.name === 'getWorkflowExecutionHistory').reduce((a, c) => a + c.ms, 0),
            total
          })
        }
      }
    }
    const trace = await api.call<ApiTrace>('trace')
    await api.call('traceOff')
    const runs = trace.requests.filter((r) => r.url === '/workflow/run')
    if (runs.length !== apiTimes.length) throw new Error(`API traced ${runs.length} /workflow/run requests for ${apiTimes.length} samples`)
    const callMs = (r: TracedRequest, name: string) => r.calls.filter((c) => c.name === name).reduce((a, c) => a + c.ms, 0)
    const engineMs = (r: TracedRequest) => r.calls.reduce((a, c) => a + c.ms, 0)
    const misses = runs.map((r, i) => ({ r, i })).filter(({ r }) => r.calls.some((c) => c.name === 'describeWorkflowExecution'))
    await drain()
    const anatomy = { api: await anatomyOf(raw, ids.api.slice(-40)), raw: await anatomyOf(raw, ids.raw.slice(-40)) }

    const overhead: Overhead = {
      samples: opts.runSamples,
      api: percentiles(apiTimes),
      raw: percentiles(rawTimes),
      p50Difference: median(apiTimes) - median(rawTimes),
      pairedMedian: median(apiTimes.map((a, i) => a - rawTimes[i])),
      split: {
        apiServer: percentiles(runs.map((r) => r.ms)),
        apiHttpAndClient: percentiles(runs.map((r, i) => apiTimes[i] - r.ms)),
        apiOwnWork: percentiles(runs.map((r) => r.ms - engineMs(r))),
        apiEngine: percentiles(runs.map(engineMs)),
        apiStartCall: percentiles(runs.map((r) => callMs(r, 'startWorkflowExecution'))),
        apiResultCall: percentiles(runs.map((r) => callMs(r, 'getWorkflowExecutionHistory'))),
        rawEngine: percentiles(rawSplit.map((s) => s.start + s.result)),
        rawStartCall: percentiles(rawSplit.map((s) => s.start)),
        rawResultCall: percentiles(rawSplit.map((s) => s.result)),
        rawClientWork: percentiles(rawSplit.map((s) => s.total - s.start - s.result))
      },
      catalogMisses: misses.length,
      catalogMissLatency: misses.length ? median(misses.map(({ i }) => apiTimes[i])) : undefined,
      apiEngineCalls: trace.counts,
      anatomy,
      times: { api: apiTimes, raw: rawTimes }
    }
    return { options: opts, throughput, startsOnly, overhead, loadBefore, loadAfter: loadavg(), warmup: { starts: warmStarts, runs: warmRuns } }
  } finally {
    await pool.close()
    await connection.close()
  }
}

/** What bench/api-process.ts answers to `trace`. */
export interface TracedRequest { url: string, ms: number, calls: { name: string, ms: number }[] }
export interface ApiTrace { requests: TracedRequest[], counts: Record<string, number> }

// ---------- report ----------

const f1 = (v: number) => v.toFixed(1)
const f2 = (v: number) => v.toFixed(2)
const msp = (p: Percentiles) => `${f1(p.p50)} / ${f1(p.p90)} / ${f1(p.p99)} ms`
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**')

export function startReport (r: StartResults, machine: string): string {
  const t = r.throughput
  const q = r.startsOnly
  const o = r.overhead
  const s = o.split
  const cores = cpus().length
  const ours = (c: Cpu) => PROCESSES.reduce((a, p) => a + c[p], 0)
  const figure = (x: Throughput) => `**${f2(x.ratio)}** (API ${x.api.perSecond.toFixed(0)} starts/s, raw ${x.raw.perSecond.toFixed(0)} starts/s` +
    `${x.pairsQuiet > 0 ? `, ${x.pairsQuiet} quiet pairs of rounds` : ', **no quiet pair: all pairs**'}: per pair median ${f2(median(x.pairRatios))}, ` +
    `${f2(Math.min(...x.pairRatios))} to ${f2(Math.max(...x.pairRatios))}; over all ${x.pairsTried} pairs measured ${f2(x.ratioAllPairs)})`
  const roundRows = [t, q].flatMap((x) => x.rounds.map((y) => `| ${x.variant === 'worker' ? 'worker running' : 'starts only'} | ${y.pair + 1}${y.accepted ? '' : ' (noisy)'} | ${y.side === 'api' ? 'API' : 'raw client'} | ${y.perSecond.toFixed(0)} | ${f1(y.latency.p50)} / ${f1(y.latency.p99)} ms | ${(y.machineBusy * 100).toFixed(0)}% | ${(y.othersShare * 100).toFixed(0)}% | ${y.side === 'api' ? Object.entries(y.apiEngineCalls).map(([k, v]) => `${k} ${v}`).join(', ') : '—'} |`))
  const cpuRow = (label: string, pick: (c: Cpu) => number, bold = false) => {
    const b = (v: string) => (bold ? `**${v}**` : v)
    return `| ${b(label)} | ${[t.cpu.api, t.cpu.raw, q.cpu.api, q.cpu.raw].map((c) => b(f2(pick(c)))).join(' | ')} |`
  }
  // The API path's extra CPU per start: its own process plus the HTTP client, minus the raw client.
  const pathExtra = (x: Throughput) => x.cpu.api.api + x.cpu.api.bench - x.cpu.raw.bench
  const apiBeyondClient = (x: Throughput) => x.cpu.api.api - x.cpu.raw.bench
  const of = (x: Throughput, side: Side) => x.rounds.filter((y) => y.side === side && (y.accepted || x.pairsQuiet === 0))
  const drained = t.cpuToDrained
  return `## Start throughput and /run overhead (DESIGN.md §11)

${machine}

| Figure | Target | Measured | |
|---|---|---|---|
| Start throughput, \`POST /workflow/start\` ÷ raw \`client.workflow.start\`, ${t.starts} starts each, ${t.concurrency} in flight, the worker running the started \`hello\` runs (figure of record) | ≥ 0.85 | ${figure(t)} | ${verdict(t.ratio >= 0.85)} |
| The same with nobody polling the task queue (the engine only records the starts: the stricter reading) | ≥ 0.85 | ${figure(q)} | ${verdict(q.ratio >= 0.85)} |
| \`/workflow/run\` p50 overhead over raw \`client.workflow.execute\`, ${o.samples} sequential runs each | ≤ 5 ms | **${f1(o.p50Difference)} ms** (API p50 ${f1(o.api.p50)} ms, raw p50 ${f1(o.raw.p50)} ms; median of paired differences ${f1(o.pairedMedian)} ms) | ${verdict(o.p50Difference <= 5)} |

### Start throughput, round by round

Pairs of rounds of ${t.rounds[0]?.starts ?? 0} starts, A B then B A …, ${t.concurrency} starts in flight. A pair counts if other work on the shared
machine took at most ${(r.options.quietShare * 100).toFixed(0)}% of it during both rounds; a noisy pair is measured again (budget ${(r.options.budgetMs / 1000).toFixed(0)} s per variant). With the
worker running, each round begins once the previous round's runs are closed.

| Variant | Pair | Side | Starts/s | Start latency p50 / p99 | Machine busy (${cores} cores) | Of it, other work | API's engine calls |
|---|---|---|---|---|---|---|---|
${roundRows.join('\n')}

### Where the CPU goes, per start

CPU ms per start during the rounds (mean of the rounds counted; /proc utime + stime of each process, /proc/stat for the machine):

| Process | Worker running: API | Worker running: raw | Starts only: API | Starts only: raw |
|---|---|---|---|---|
${cpuRow('Temporal dev server', (c) => c.engine)}
${cpuRow('Worker', (c) => c.worker)}
${cpuRow('API process', (c) => c.api)}
${cpuRow('Benchmark process (undici HTTP client, or the raw Temporal client)', (c) => c.bench)}
${cpuRow('Our processes', ours, true)}
${cpuRow('Other work on the shared machine', (c) => c.others)}

- The API path's own CPU per start, the API process plus the HTTP client minus the raw Temporal client, is ${f2(pathExtra(t))} ms with
  the worker running (${f2(t.cpu.api.api)} + ${f2(t.cpu.api.bench)} − ${f2(t.cpu.raw.bench)}) and ${f2(pathExtra(q))} ms with starts only (${f2(q.cpu.api.api)} + ${f2(q.cpu.api.bench)} − ${f2(q.cpu.raw.bench)}).
  The API process spends ${f2(apiBeyondClient(t))} / ${f2(apiBeyondClient(q))} ms of it beyond what the raw client spends (HTTP server, routing,
  validation, catalog, reply); the rest is the HTTP client, which a real caller pays on its own machine. Our processes
  together: ${f2(ours(t.cpu.api))} vs ${f2(ours(t.cpu.raw))} ms per start with the worker (raw/API ${f2(ours(t.cpu.raw) / ours(t.cpu.api))}), ${f2(ours(q.cpu.api))} vs ${f2(ours(q.cpu.raw))} ms starts only
  (${f2(ours(q.cpu.raw) / ours(q.cpu.api))}); the engine's share moves by up to a millisecond between rounds on its own.
- The machine was ${(t.machineBusy.api * 100).toFixed(0)}% / ${(t.machineBusy.raw * 100).toFixed(0)}% busy in the API / raw rounds with the worker running and ${(q.machineBusy.api * 100).toFixed(0)}% / ${(q.machineBusy.raw * 100).toFixed(0)}% with
  starts only (other work in the rounds counted: ${(t.othersShare.api * 100).toFixed(0)}% / ${(t.othersShare.raw * 100).toFixed(0)}% and ${(q.othersShare.api * 100).toFixed(0)}% / ${(q.othersShare.raw * 100).toFixed(0)}%). Where the ${cores} cores are nearly full, the
  API path's extra CPU is taken from the engine and the worker and the throughput ratio follows the CPU ratio; with
  headroom, both sides are bounded by the engine's own start latency under ${t.concurrency} in flight (start p50 ${f1(median(of(q, 'api').map((x) => x.latency.p50)))} ms through the
  API, ${f1(median(of(q, 'raw').map((x) => x.latency.p50)))} ms raw, against ${f1(o.split.rawStartCall.p50)} ms for one start alone).${drained
? `
- Until the started runs were closed, the engine spent ${f2(drained.api.engine)} (API rounds) and ${f2(drained.raw.engine)} (raw rounds) ms per start and the worker
  ${f2(drained.api.worker)} and ${f2(drained.raw.worker)} ms: the same work on both sides, most of it running the workflows rather than starting them.`
: ''}
- The API described the catalog ${t.catalogDescribes + q.catalogDescribes} times in ${t.catalogStarts + q.catalogStarts} starts (its 2 s cache): a start costs it one engine call, like
  the raw client.

### \`/workflow/run\` overhead

| Sequential \`hello\` runs (p50 / p90 / p99) | Through the API | Raw client |
|---|---|---|
| Client-observed, start → result | ${msp(o.api)} | ${msp(o.raw)} |
| Engine calls (StartWorkflowExecution + close-event long-poll), as the caller timed them | ${msp(s.apiEngine)} | ${msp(s.rawEngine)} |
| … StartWorkflowExecution | ${msp(s.apiStartCall)} | ${msp(s.rawStartCall)} |
| … GetWorkflowExecutionHistory (waits for the run to close) | ${msp(s.apiResultCall)} | ${msp(s.rawResultCall)} |
| API's own work (server time − engine calls: routing, body and input validation, catalog, decoding, serialization) | ${msp(s.apiOwnWork)} | — |
| HTTP and client (client-observed − server time: undici, loopback, parsing) | ${msp(s.apiHttpAndClient)} | — |
| Client library's own work (client-observed − engine calls) | — | ${msp(s.rawClientWork)} |
| API server time (request parsed → response finished) | ${msp(s.apiServer)} | — |

A \`hello\` run itself (engine event times, medians of the last ${o.anatomy.api.runs} runs of each side, API / raw): started → first workflow task
picked up ${f1(o.anatomy.api.firstTaskDispatch)} / ${f1(o.anatomy.raw.firstTaskDispatch)} ms, worker's first task ${f1(o.anatomy.api.firstTask)} / ${f1(o.anatomy.raw.firstTask)} ms, step dispatch ${f1(o.anatomy.api.stepDispatch)} / ${f1(o.anatomy.raw.stepDispatch)} ms,
step ${f1(o.anatomy.api.step)} / ${f1(o.anatomy.raw.step)} ms, second task dispatch ${f1(o.anatomy.api.secondTaskDispatch)} / ${f1(o.anatomy.raw.secondTaskDispatch)} ms and run ${f1(o.anatomy.api.secondTask)} / ${f1(o.anatomy.raw.secondTask)} ms; started → closed ${f1(o.anatomy.api.total)} / ${f1(o.anatomy.raw.total)} ms.

The p50 overhead is the API's own work plus HTTP, about ${f1(s.apiOwnWork.p50 + s.apiHttpAndClient.p50)} ms, against the raw client's own ${f1(s.rawClientWork.p50)} ms;
most of a run's time is the engine and the worker running \`hello\` (the long-poll), the same on both sides, and its noise is
what the p90/p99 show. Catalog cache misses in the API samples: ${o.catalogMisses} of ${o.samples}${o.catalogMissLatency !== undefined ? ` (their median ${f1(o.catalogMissLatency)} ms)` : ''};
engine calls the API made: ${Object.entries(o.apiEngineCalls).map(([k, v]) => `${k} ${v}`).join(', ')}.

### Method

- \`npm run bench -- start\` (bench/start.ts): the benchmark's own Temporal dev server, one worker serving the examples on
  catalog \`flowport-bench\`, the API in its own process (\`LOG_LEVEL=warn\`), the raw client on its own gRPC connection in
  the benchmark process. Both sides start \`hello\` with \`{"name":"Ada"}\` on the same task queue with the same id policies
  (random UUID ids, allow-duplicate reuse, fail on conflict), so the engine does the same work.
- "Starts only": the benchmark publishes a copy of the catalog as catalog \`${q.taskQueue}\` (a catalog workflow with the same
  memo on a task queue no worker polls), so the API validates and starts exactly as before and the engine only records
  the starts; the runs stay open and idle.
- Warm-up before measuring: ${r.warmup.starts} starts per side and catalog at full concurrency (opens every pooled connection,
  compiles the validators, fills the catalog cache) and ${r.warmup.runs} runs per side.
- Throughput: a closed loop keeps ${t.concurrency} starts in flight through one undici \`Pool\` of ${t.concurrency} keep-alive connections
  (side A, \`POST /workflow/start\`) or on the raw client (side B). Starts/s = starts ÷ summed round wall time of that side.
  With the worker running, the worker runs the started workflows during the round, as in production, and the next round
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
