/**
 * `npm run bench -- trace`: what execution traces cost a step and how large a trace grows, three
 * workers side by side (the method: the section's note below). Measured, never asserted.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tsToMs } from '@temporalio/common/lib/time.js'
import { TraceStore } from '@flowport/core/trace'
import { createBucket, S3_TEST_CREDENTIALS, startS3Server } from '../test/helpers/s3-server.js'
import { machineNote, table, writeSection } from './results.js'
import { closedLoop, interleaved, percentiles } from './measure.js'
import { startStack } from './stack.js'

const ROUNDS = Number(process.env.TRACE_ROUNDS ?? 6)
const RUNS = Number(process.env.TRACE_RUNS ?? 24)
const STEPS = Number(process.env.TRACE_STEPS ?? 20)
const CONCURRENCY = Number(process.env.TRACE_CONCURRENCY ?? 8)

type Variant = 'off' | 'local' | 'local+bucket'
const VARIANTS: Variant[] = ['off', 'local', 'local+bucket']

/** The middle sample (measure.ts' p50), as the engine's whole-millisecond latencies have it. */
const median = (values: number[]) => percentiles(values).p50

const s3 = await startS3Server((m) => console.log(`s3: ${m}`))
await createBucket(s3.endpoint, 'bench-traces')
const traceDir = mkdtempSync(join(tmpdir(), 'flowport-bench-traces-'))
const catalogOf = (v: Variant) => `bench-trace-${v.replace('+', '-')}`
const traceEnv = (v: Variant): Record<string, string> => v === 'off'
  ? { SERVICE_TRACE_ENABLED: 'false' }
  : { SERVICE_TRACE_DIR: join(traceDir, v.replace('+', '-')), ...(v === 'local+bucket' ? { SERVICE_TRACE_S3_BUCKET: 'bench-traces', SERVICE_CLOUD_ENDPOINT: s3.endpoint, ...S3_TEST_CREDENTIALS } : {}) }
const stack = await startStack(VARIANTS.map(catalogOf), {
  env: (i) => ({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...traceEnv(VARIANTS[i]) })
})
const { client } = stack

/** Runs RUNS sleepy runs, CONCURRENCY at once; returns steps per second and every step's engine-side latency. */
async function round (variant: Variant): Promise<{ stepsPerSecond: number, latencies: number[] }> {
  const ids: string[] = []
  const { ms } = await closedLoop(RUNS, CONCURRENCY, async () => {
    const workflowId = `bench-${variant}-${randomUUID()}`
    ids.push(workflowId)
    await client.workflow.execute('sleepy', { taskQueue: catalogOf(variant), workflowId, args: [{ steps: STEPS, delayMs: 0 }] })
  })
  const latencies: number[] = []
  for (const id of ids) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? []
    const scheduled = new Map<string, number>()
    for (const e of events) {
      if (e.activityTaskScheduledEventAttributes) scheduled.set(String(e.eventId), tsToMs(e.eventTime))
      const done = e.activityTaskCompletedEventAttributes
      if (done) latencies.push(tsToMs(e.eventTime) - scheduled.get(String(done.scheduledEventId))!)
    }
  }
  return { stepsPerSecond: (RUNS * STEPS) / (ms / 1000), latencies }
}

try {
  for (const v of VARIANTS) await round(v) // warm-up: bundles, caches, JIT
  const results = Object.fromEntries(VARIANTS.map((v) => [v, { rates: [] as number[], latencies: [] as number[] }])) as Record<Variant, { rates: number[], latencies: number[] }>
  await interleaved(ROUNDS, VARIANTS, async (v, r) => {
    const { stepsPerSecond, latencies } = await round(v)
    results[v].rates.push(stepsPerSecond)
    results[v].latencies.push(...latencies)
    console.log(`round ${r + 1} ${v}: ${stepsPerSecond.toFixed(0)} steps/s, step p50 ${median(latencies)} ms`)
  })

  // The trace of a 100-step run, as the keeper stores it.
  const big = await client.workflow.start('sleepy', { taskQueue: catalogOf('local'), workflowId: `bench-size-${randomUUID()}`, args: [{ steps: 100, delayMs: 0 }] })
  await big.result()
  const store = new TraceStore({ dir: join(traceDir, 'local'), s3: null, maxValueBytes: 65_536, sweepMs: 5000, lookbackMs: 0, localRetentionMs: 0, writeQueueMax: 1000 })
  let size = 0
  for (let i = 0; i < 80 && size === 0; i++) {
    size = statSync(store.destinations(big.workflowId, big.firstExecutionRunId).local!, { throwIfNoEntry: false })?.size ?? 0
    if (size === 0) await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const trace = await store.readLocal(big.workflowId, big.firstExecutionRunId)

  const off = results.off
  const row = (v: Variant) => {
    const { rates, latencies } = results[v]
    const drop = v === 'off' ? '—' : `${((1 - median(rates) / median(off.rates)) * 100).toFixed(1)} %`
    const added = v === 'off' ? '—' : `${(median(latencies) - median(off.latencies)).toFixed(1)} ms`
    return `| ${v} | ${median(rates).toFixed(0)} (${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}) | ${drop} | ${median(latencies)} ms | ${percentiles(latencies).p99} ms | ${added} |`
  }
  writeSection('trace', `## Execution traces: overhead per step and trace size

${machineNote()}
Three workers (separate processes, the examples' \`sleepy\` workflow): tracing off, local traces, local traces plus an
S3 bucket (moto on loopback). ${ROUNDS} interleaved rounds per worker of ${RUNS} runs × ${STEPS} steps, ${CONCURRENCY} runs at once,
started with the raw Temporal client (no API in the path).

${table(['Tracing', 'Steps/s, median of rounds (min–max)', 'Throughput drop vs off', 'Step latency p50', 'p99', 'Added at p50'], VARIANTS.map(row))}

Goals: ≤ 5 % throughput drop, ≤ 1 ms per step at p50. Step latency is the engine's own clock, from
ActivityTaskScheduled to ActivityTaskCompleted (whole milliseconds: the engine's timestamps), so it holds the worker's
part of a step, where tracing sits: an interceptor that writes nothing for an attempt that succeeds (only failed
attempts are recorded). The trace itself is written once per run, after the close, by the keeper in the worker process;
its cost shows in the throughput column.

A 100-step \`sleepy\` run: trace document ${(size / 1024).toFixed(1)} KiB (${trace?.nodes.length ?? 0} nodes), i.e. about ${(size / 100).toFixed(0)} bytes per step with
its input, output and one attempt.
`)
} finally {
  await Promise.all([stack.stop(), s3.stop()])
}
