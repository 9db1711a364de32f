/**
 * `npm run bench -- cluster`: scale-out on the cluster topology (docs/cluster.md), one API replica
 * against two and one worker against two, with each process's CPU share (the method: the
 * section's note below).
 */
import { cpus, loadavg } from 'node:os'
import { Client, Connection } from '@temporalio/client'
import { startCluster, type Cluster, type ClusterState } from '../cli/cluster/topology.js'
import { closedLoop, f1, machineCpuMs, percentiles, processCpuMs } from './measure.js'
import { descendants } from '../test/helpers/processes.js'
import { machineNote, writeSection } from './results.js'
import { post } from './stack.js'
import { bottleneckAnalysis, type ClusterResults, type RunFigure, type StartFigure, type StepFigure } from './cluster-analysis.js'

const SETTINGS = {
  /** Seconds of each start-throughput measurement. */
  startSeconds: Number(process.env.BENCH_CLUSTER_START_S ?? 20),
  startConcurrency: Number(process.env.BENCH_CLUSTER_START_CONCURRENCY ?? 32),
  runSamples: Number(process.env.BENCH_CLUSTER_RUN_SAMPLES ?? 300),
  runConcurrency: Number(process.env.BENCH_CLUSTER_RUN_CONCURRENCY ?? 8),
  /** Step throughput: this many `sleepy` runs of `stepsPerRun` steps (no timers) at once. */
  stepRuns: Number(process.env.BENCH_CLUSTER_STEP_RUNS ?? 40),
  stepsPerRun: Number(process.env.BENCH_CLUSTER_STEPS_PER_RUN ?? 50)
}

const log = (m: string): void => { console.log(`[bench cluster] ${m}`) }

/** Every process of the topology: members, the Temporal server, PostgreSQL with all its backends. */
function processes (state: ClusterState): Record<string, number[]> {
  return {
    ...Object.fromEntries(state.members.map((m) => [m.name, [m.pid]])),
    temporal: [state.temporal.pid],
    postgres: [state.postgres.pid, ...descendants(state.postgres.pid)],
    bench: [process.pid]
  }
}

/** CPU time per process group and the machine's, between `measure` start and end, as shares of the whole machine. */
async function withCpu<T> (state: ClusterState, work: () => Promise<T>): Promise<{ result: T, share: Record<string, number>, machineBusy: number }> {
  const groups = processes(state)
  const cpu = () => Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((s, pid) => s + (processCpuMs(pid) || 0), 0)]))
  const a = cpu()
  const ma = machineCpuMs()
  const result = await work()
  const b = cpu()
  const mb = machineCpuMs()
  const capacity = Math.max(1, mb.total - ma.total)
  const share: Record<string, number> = {}
  let ours = 0
  for (const name of Object.keys(groups)) {
    share[name] = (b[name] - a[name]) / capacity
    ours += b[name] - a[name]
  }
  share.others = Math.max(0, mb.busy - ma.busy - ours) / capacity
  return { result, share, machineBusy: (mb.busy - ma.busy) / capacity }
}

async function startThroughput (state: ClusterState, bases: string[]): Promise<StartFigure> {
  let turn = 0
  let starts = 0
  const end = Date.now() + SETTINGS.startSeconds * 1000
  // `approval` waits for a signal: one workflow task per start, then nothing, so starts measure the API and the engine.
  const { result: ms, share, machineBusy } = await withCpu(state, async () => {
    const t0 = performance.now()
    await Promise.all(Array.from({ length: SETTINGS.startConcurrency }, async () => {
      while (Date.now() < end) {
        await post(bases[turn++ % bases.length], '/workflow/start', { workflowName: 'approval', input: { label: 'bench' } })
        starts++
      }
    }))
    return performance.now() - t0
  })
  return { replicas: bases.length, starts, perSecond: starts / (ms / 1000), share, machineBusy }
}

async function runLatency (state: ClusterState, bases: string[]): Promise<RunFigure> {
  let turn = 0
  const { result, share, machineBusy } = await withCpu(state, async () => await closedLoop(SETTINGS.runSamples, SETTINGS.runConcurrency, async () => {
    await post(bases[turn++ % bases.length], '/workflow/run', { workflowName: 'hello', input: { name: 'bench' } })
  }))
  return { replicas: bases.length, latency: percentiles(result.latencies), share, machineBusy }
}

async function stepThroughput (cluster: Cluster, workers: number): Promise<StepFigure> {
  const { state } = cluster
  const connection = await Connection.connect({ address: state.temporal.address })
  try {
    const client = new Client({ connection, namespace: state.temporal.namespace })
    const api = state.members.find((m) => m.role === 'api')!.url
    const { result: ms, share, machineBusy } = await withCpu(state, async () => {
      const t0 = performance.now()
      const started = await Promise.all(Array.from({ length: SETTINGS.stepRuns }, async () =>
        await post(api, '/workflow/start', { workflowName: 'sleepy', input: { steps: SETTINGS.stepsPerRun, delayMs: 0 } }) as { workflowId: string, runId: string }))
      await Promise.all(started.map(async ({ workflowId, runId }) => { await client.workflow.getHandle(workflowId, runId).result() }))
      return performance.now() - t0
    })
    const steps = SETTINGS.stepRuns * SETTINGS.stepsPerRun
    return { workers, steps, perSecond: steps / (ms / 1000), share, machineBusy }
  } finally {
    await connection.close()
  }
}

const pct = (v: number | undefined) => `${((v ?? 0) * 100).toFixed(0)}%`
const COLUMNS = ['api-a', 'api-b', 'worker-a', 'worker-b', 'temporal', 'postgres', 'bench', 'others']
const shareCells = (share: Record<string, number>) => COLUMNS.map((c) => (share[c] === undefined ? '—' : pct(share[c]))).join(' | ')

function report (r: ClusterResults, machine: string): string {
  const ratio = (a: number, b: number) => `×${(b / a).toFixed(2)}`
  return `## Cluster: one versus two API replicas and workers (PostgreSQL + Temporal server)

${machine}
The topology of \`npm run cluster\` (docs/cluster.md): PostgreSQL (Debian's, default settings), the Temporal server built from
\`go.temporal.io/server\` (4 history shards, one process), API replicas and workers each in a process of its own; the
clients run in the benchmark process. Everything shares these ${cpus().length} cores. CPU columns: each process's share of the
whole machine (${cpus().length} cores = 100%) while the figure was measured; \`postgres\` includes every backend; \`others\` is
work outside the topology (other jobs on this shared machine, the kernel). Load average when the run began: ${r.load.map((l) => l.toFixed(1)).join(' / ')}.

| Figure | 1 | 2 | 2 vs 1 |
|---|---|---|---|
| Starts per second through the API (${SETTINGS.startConcurrency} clients, ${SETTINGS.startSeconds} s, \`approval\`) | ${f1(r.starts[0].perSecond)} | ${f1(r.starts[1].perSecond)} | ${ratio(r.starts[0].perSecond, r.starts[1].perSecond)} |
| \`/workflow/run\` of \`hello\`, p50 / p90 / p99 (${SETTINGS.runConcurrency} clients, ${SETTINGS.runSamples} runs) | ${f1(r.runs[0].latency.p50)} / ${f1(r.runs[0].latency.p90)} / ${f1(r.runs[0].latency.p99)} ms | ${f1(r.runs[1].latency.p50)} / ${f1(r.runs[1].latency.p90)} / ${f1(r.runs[1].latency.p99)} ms | p50 ${ratio(r.runs[0].latency.p50, r.runs[1].latency.p50)} |
| Steps per second (${SETTINGS.stepRuns} \`sleepy\` runs × ${SETTINGS.stepsPerRun} steps at once) | ${f1(r.steps[0].perSecond)} | ${f1(r.steps[1].perSecond)} | ${ratio(r.steps[0].perSecond, r.steps[1].perSecond)} |

### Where the bottleneck is

${bottleneckAnalysis(r, cpus().length)}

### CPU share of each process

| Measurement | machine busy | ${COLUMNS.join(' | ')} |
|---|---|${COLUMNS.map(() => '---').join('|')}|
${[
  ...r.starts.map((s) => `| starts, ${s.replicas} replica${s.replicas > 1 ? 's' : ''} | ${pct(s.machineBusy)} | ${shareCells(s.share)} |`),
  ...r.runs.map((s) => `| /workflow/run, ${s.replicas} replica${s.replicas > 1 ? 's' : ''} | ${pct(s.machineBusy)} | ${shareCells(s.share)} |`),
  ...r.steps.map((s) => `| steps, ${s.workers} worker${s.workers > 1 ? 's' : ''} | ${pct(s.machineBusy)} | ${shareCells(s.share)} |`)
].join('\n')}

### Method

- API replicas: one cluster with two replicas and two workers; "1" sends every request to \`api-a\`, "2" alternates
  between \`api-a\` and \`api-b\` (what a round-robin proxy does), same clients, same duration.
- Workers: "1" is a cluster with one worker, "2" one with two (each run on a fresh cluster: PostgreSQL, Temporal,
  the API); the runs are started through the API and awaited with the Temporal client.
- CPU: user + system time from /proc of each process (PostgreSQL: the postmaster and every backend) over the
  measurement, divided by the machine's capacity over the same time.
`
}

async function main (): Promise<void> {
  const machine = machineNote()
  const load = loadavg()
  const env = { LOG_LEVEL: 'warn' }
  const starts: StartFigure[] = []
  const runs: RunFigure[] = []
  const steps: StepFigure[] = []

  log('cluster: 2 API replicas, 2 workers')
  let cluster = await startCluster({ apis: 2, workers: 2, env, log, output: () => {} })
  try {
    const [a, b] = cluster.state.members.filter((m) => m.role === 'api').map((m) => m.url)
    // Warm-up: JIT, connections, the catalog caches of both replicas.
    await runLatency(cluster.state, [a, b])
    for (const bases of [[a], [a, b]]) {
      starts.push(await startThroughput(cluster.state, bases))
      log(`starts, ${bases.length} replica(s): ${f1(starts.at(-1)!.perSecond)}/s`)
      runs.push(await runLatency(cluster.state, bases))
      log(`/workflow/run, ${bases.length} replica(s): p50 ${f1(runs.at(-1)!.latency.p50)} ms`)
    }
  } finally {
    await cluster.stop()
  }
  for (const workers of [1, 2]) {
    log(`cluster: 1 API replica, ${workers} worker(s)`)
    cluster = await startCluster({ apis: 1, workers, env, log, output: () => {} })
    try {
      steps.push(await stepThroughput(cluster, workers))
      log(`steps, ${workers} worker(s): ${f1(steps.at(-1)!.perSecond)}/s`)
    } finally {
      await cluster.stop()
    }
  }
  const results = { starts, runs, steps, load }
  console.log(JSON.stringify(results, null, 2))
  writeSection('cluster', report(results, machine))
}

await main()
