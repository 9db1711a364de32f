/**
 * `npm run bench`: every benchmark, each writing its section of bench/RESULTS.md; `npm run bench --
 * start read` (or `BENCH=start,read`) only those sections (their names: SECTIONS, bench/results.ts;
 * a path among the arguments is cpu-per-run's other worktree). `sse`, `read` and `start` share one
 * Temporal dev server and a worker serving the examples, each against a fresh API process (GC
 * exposed); the others run as scripts of their own, each with engines of its own.
 * Not a test: figures are measured and written down next to their targets, never asserted.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { assertBuilt, readReport, runReadBenchmark } from './read.js'
import { runSseBenchmark, sseReport } from './sse.js'
import { runStartBenchmark, startReport } from './start.js'
import { keepFigures, machineNote, SECTIONS, writeSection } from './results.js'
import { startStack, stopAll } from './stack.js'

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
if (selected.includes('read')) assertBuilt()

/** The benchmarks that share one engine and worker (each with an API process of its own). */
async function runShared (): Promise<void> {
  const stack = await startStack([CATALOG])
  const { engine, client } = stack
  const pids = { engine: engine.process.pid ?? 0, worker: stack.children[0]?.pid ?? 0 }
  try {
    for (const name of selected) {
      // Each benchmark gets an API process of its own (the SSE one ends by closing its API).
      const machine = machineNote()
      const { api, child } = await stack.api(CATALOG)
      if (name === 'start') {
        console.log(`API at ${api.base}; start benchmark: ${JSON.stringify(START)}`)
        const results = await runStartBenchmark(api, { address: engine.address, namespace: engine.namespace, taskQueue: CATALOG, ...START, pids })
        const json = keepFigures('start', { machine, results })
        console.log(`ratio ${results.throughput.ratio.toFixed(2)}, /run p50 overhead ${results.overhead.p50Difference.toFixed(1)} ms; all figures in ${json}`)
        writeSection('start', startReport(results, machine))
      } else if (name === 'read') {
        console.log(`API at ${api.base}; read benchmark: ${JSON.stringify(READ)}`)
        const results = await runReadBenchmark(api, client, { ...READ, taskQueue: CATALOG, address: engine.address, namespace: engine.namespace, pids })
        console.log(`all read figures in ${keepFigures('read', { machine, results })}`)
        writeSection('read', readReport(results, machine))
      } else {
        console.log(`API at ${api.base}; SSE benchmark: ${CLIENTS} clients`)
        const results = await runSseBenchmark(api, client, CATALOG, CLIENTS)
        console.log(JSON.stringify(results, null, 2))
        writeSection('sse', sseReport(results, machine))
      }
      await stopAll([child])
    }
  } finally {
    await stack.stop()
  }
}

if (selected.length > 0) await runShared()

// The outage benchmark kills and restarts an engine of its own, so it runs alone, after the rest.
const sectionOf = { 'cpu-per-run': 'cpu-per-run', 'engine-outage': 'engine-outage', 'trace-overhead': 'trace', latency: 'latency', observability: 'observability', 'payload-codec': 'payloads', inspector: 'inspector', cluster: 'cluster', 'first-start': 'first-start', scale: 'scale' }
for (const [name, section] of Object.entries(sectionOf)) {
  if (asked.length > 0 && !asked.includes(section)) continue
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), ...paths], { stdio: 'inherit' })
  const code = await new Promise<number | null>((done) => child.once('exit', done))
  if (code !== 0) throw new Error(`bench/${name}.ts exited with ${code}`)
}
