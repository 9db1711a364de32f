/**
 * Start throughput: `POST /workflow/start` against the raw `client.workflow.start`, with a fixed
 * number in flight, in pairs of rounds measured only while the shared machine is quiet; with each
 * round's CPU time per process and the engine calls the API made.
 */
import { cpus } from 'node:os'
import {
  PROCESSES, busyShare, closedLoop, cpuPerOp, cpuSnapshot, f1, f2, meanCpu, median, now, othersShare, percentiles,
  type ApiTrace, type Cpu, type Percentiles, type Side
} from './measure.js'
import { table } from './results.js'
import type { StartSession } from './start-session.js'

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
  /** Same, from the round's start until the worker closed the started runs. */
  cpuToDrained: Cpu
  /** Share of the machine's CPU capacity in use during the round, all processes. */
  machineBusy: number
  /** Share of it other work took (not the engine, worker, API or benchmark). */
  othersShare: number
  /** Engine calls the API made during the round, by gRPC method (api side only). */
  apiEngineCalls: Record<string, number>
}

export interface Throughput {
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
  cpuToDrained: Record<Side, Cpu>
  machineBusy: Record<Side, number>
  othersShare: Record<Side, number>
  /** Catalog describes the API made over the API rounds of `catalogStarts` starts (all rounds). */
  catalogDescribes: number
  catalogStarts: number
}

/**
 * Start throughput: pairs of rounds (A B, then B A, …) of starts on `catalog` until `opts.rounds` pairs ran while
 * the machine was quiet (other work ≤ `opts.quietShare` of it during both rounds) or the time
 * budget is spent; a noisy pair is measured again. Each round is followed by waiting until the
 * worker closed its runs, so the next round meets the same engine state.
 */
export async function measureThroughput (session: StartSession, catalog: string): Promise<Throughput> {
  const { api, opts, pids, raw, input, rawOptions, post, drain, othersShareNow } = session
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
    await drain()
    const cpuToDrained = cpuPerOp(before, cpuSnapshot(pids), perRound)
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
    console.log(`pair ${pair + 1} (${accepted}/${opts.rounds} quiet): ` + measured.map((r) =>
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
    cpuToDrained: { api: meanCpu(of('api'), (r) => r.cpuToDrained), raw: meanCpu(of('raw'), (r) => r.cpuToDrained) },
    machineBusy: { api: mean(of('api'), (r) => r.machineBusy), raw: mean(of('raw'), (r) => r.machineBusy) },
    othersShare: { api: mean(of('api'), (r) => r.othersShare), raw: mean(of('raw'), (r) => r.othersShare) },
    catalogDescribes: rounds.reduce((a, r) => a + (r.apiEngineCalls.describeWorkflowExecution ?? 0), 0),
    catalogStarts: of('api', rounds).reduce((a, r) => a + r.starts, 0)
  }
}

/** The rounds and CPU sections of the report; `oneStartMs` is a lone start's engine time (bench/run-overhead.ts). */
export function throughputReport (t: Throughput, quietShare: number, budgetMs: number, oneStartMs: number): string {
  const cores = cpus().length
  const ours = (c: Cpu) => PROCESSES.reduce((a, p) => a + c[p], 0)
  const roundRows = t.rounds.map((y) => `| ${y.pair + 1}${y.accepted ? '' : ' (noisy)'} | ${y.side === 'api' ? 'API' : 'raw client'} | ${y.perSecond.toFixed(0)} | ${f1(y.latency.p50)} / ${f1(y.latency.p99)} ms | ${(y.machineBusy * 100).toFixed(0)}% | ${(y.othersShare * 100).toFixed(0)}% | ${y.side === 'api' ? Object.entries(y.apiEngineCalls).map(([k, v]) => `${k} ${v}`).join(', ') : '—'} |`)
  const cpuRow = (label: string, pick: (c: Cpu) => number, bold = false) => {
    const b = (v: string) => (bold ? `**${v}**` : v)
    return `| ${b(label)} | ${[t.cpu.api, t.cpu.raw].map((c) => b(f2(pick(c)))).join(' | ')} |`
  }
  const of = (side: Side) => t.rounds.filter((y) => y.side === side && (y.accepted || t.pairsQuiet === 0))
  const drained = t.cpuToDrained
  return `### Start throughput, round by round

Pairs of rounds of ${t.rounds[0]?.starts ?? 0} starts, A B then B A …, ${t.concurrency} starts in flight. A pair counts if other work on the shared
machine took at most ${(quietShare * 100).toFixed(0)}% of it during both rounds; a noisy pair is measured again (budget ${(budgetMs / 1000).toFixed(0)} s). Each round
begins once the previous round's runs are closed.

${table(['Pair', 'Side', 'Starts/s', 'Start latency p50 / p99', `Machine busy (${cores} cores)`, 'Of it, other work', 'API\'s engine calls'], roundRows)}

### Where the CPU goes, per start

CPU ms per start during the rounds (mean of the rounds counted; /proc utime + stime of each process, /proc/stat for the machine):

| Process | API | raw client |
|---|---|---|
${cpuRow('Temporal dev server', (c) => c.engine)}
${cpuRow('Worker', (c) => c.worker)}
${cpuRow('API process', (c) => c.api)}
${cpuRow('Benchmark process (undici HTTP client, or the raw Temporal client)', (c) => c.bench)}
${cpuRow('Our processes', ours, true)}
${cpuRow('Other work on the shared machine', (c) => c.others)}

- The API path's own CPU per start, the API process plus the HTTP client minus the raw Temporal client, is
  ${f2(t.cpu.api.api + t.cpu.api.bench - t.cpu.raw.bench)} ms (${f2(t.cpu.api.api)} + ${f2(t.cpu.api.bench)} − ${f2(t.cpu.raw.bench)}). The API process spends ${f2(t.cpu.api.api - t.cpu.raw.bench)} ms of it beyond what
  the raw client spends (HTTP server, routing, validation, catalog, reply); the rest is the HTTP client, which a real
  caller pays on its own machine. Our processes together: ${f2(ours(t.cpu.api))} vs ${f2(ours(t.cpu.raw))} ms per start (raw/API ${f2(ours(t.cpu.raw) / ours(t.cpu.api))}); the
  engine's share moves by up to a millisecond between rounds on its own.
- The machine was ${(t.machineBusy.api * 100).toFixed(0)}% / ${(t.machineBusy.raw * 100).toFixed(0)}% busy in the API / raw rounds (other work in the rounds counted:
  ${(t.othersShare.api * 100).toFixed(0)}% / ${(t.othersShare.raw * 100).toFixed(0)}%). Where the ${cores} cores are nearly full, the API path's extra CPU is taken from the engine
  and the worker and the throughput ratio follows the CPU ratio; with headroom, both sides are bounded by the engine's
  own start latency under ${t.concurrency} in flight (start p50 ${f1(median(of('api').map((x) => x.latency.p50)))} ms through the API, ${f1(median(of('raw').map((x) => x.latency.p50)))} ms raw, against
  ${f1(oneStartMs)} ms for one start alone).
- Until the started runs were closed, the engine spent ${f2(drained.api.engine)} (API rounds) and ${f2(drained.raw.engine)} (raw rounds) ms per start and the worker
  ${f2(drained.api.worker)} and ${f2(drained.raw.worker)} ms: the same work on both sides, most of it running the workflows rather than starting them.
- The API described the catalog ${t.catalogDescribes} times in ${t.catalogStarts} starts (its 2 s cache): a start costs it one engine call, like
  the raw client.
`
}
