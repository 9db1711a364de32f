/**
 * `npm run bench -- payloads`: what the large-payload codec (docs/large-payloads.md) costs a run
 * whose payloads are all small, codec on against off (the method: the section's note below).
 * Measured, never asserted.
 */
import { defaultPayloadConverter } from '@temporalio/common'
import { ClaimCheckCodec, PayloadStore } from '@flowport/core/payloads'
import { createBucket, S3_TEST_CREDENTIALS, startS3Server } from '../test/helpers/s3-server.js'
import { machineNote, table, writeSection } from './results.js'
import { f2, interleaved, percentiles } from './measure.js'
import { startStack, type Api } from './stack.js'

const ROUNDS = Number(process.env.PAYLOAD_ROUNDS ?? 8)
const RUNS = Number(process.env.PAYLOAD_RUNS ?? 100)

type Variant = 'off' | 'on'
const VARIANTS: Variant[] = ['off', 'on']

/**
 * The codec alone, in this process: encode + decode of a `hello`-sized payload, which it passes
 * through (the store is never called). Immune to the machine's load in a way the HTTP figures are not.
 */
async function passThroughNs (): Promise<{ ns: number, iterations: number }> {
  const store = new PayloadStore({ thresholdBytes: 256 * 1024, s3: { bucket: 'unused', prefix: '', region: 'us-east-1' } })
  const codec = new ClaimCheckCodec(store)
  const payloads = [defaultPayloadConverter.toPayload({ name: 'Ada' })]
  const iterations = 200_000
  for (let i = 0; i < 10_000; i++) await codec.decode(await codec.encode(payloads))
  const began = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) await codec.decode(await codec.encode(payloads))
  return { ns: Number(process.hrtime.bigint() - began) / iterations, iterations }
}
const passThrough = await passThroughNs()

const s3 = await startS3Server((m) => console.log(`s3: ${m}`))
await createBucket(s3.endpoint, 'bench-payloads')
const catalogOf = (v: Variant) => `bench-codec-${v}`
const stack = await startStack(VARIANTS.map(catalogOf), {
  env: (i) => ({
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    SERVICE_TRACE_ENABLED: 'false',
    SERVICE_TRACE_S3_BUCKET: 'bench-payloads',
    SERVICE_CLOUD_ENDPOINT: s3.endpoint,
    ...S3_TEST_CREDENTIALS,
    SERVICE_PAYLOAD_REFS_ENABLED: VARIANTS[i] === 'on' ? 'true' : 'false'
  })
})

/** RUNS sequential /workflow/run calls of hello; every call's latency in ms. */
async function round (api: Api): Promise<number[]> {
  const latencies: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const began = performance.now()
    const res = await fetch(`${api.base}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'hello', input: { name: `bench-${i}` } })
    })
    await res.arrayBuffer()
    latencies.push(performance.now() - began)
    if (res.status !== 200) throw new Error(`/workflow/run answered ${res.status}`)
  }
  return latencies
}

try {
  const apis: Api[] = []
  for (const v of VARIANTS) apis.push((await stack.api(catalogOf(v))).api)
  const apiOf = (v: Variant) => apis[VARIANTS.indexOf(v)]
  for (const v of VARIANTS) await round(apiOf(v)) // warm-up: bundles, caches, JIT
  const samples: Record<Variant, number[]> = { off: [], on: [] }
  const medians: Record<Variant, number[]> = { off: [], on: [] }
  await interleaved(ROUNDS, VARIANTS, async (v, r) => {
    const latencies = await round(apiOf(v))
    samples[v].push(...latencies)
    medians[v].push(percentiles(latencies).p50)
    console.log(`round ${r + 1} codec ${v}: p50 ${percentiles(latencies).p50.toFixed(2)} ms`)
  })
  const off = percentiles(samples.off)
  const row = (v: Variant) => {
    const p = percentiles(samples[v])
    const spread = `${f2(Math.min(...medians[v]))}–${f2(Math.max(...medians[v]))}`
    return `| ${v} | ${p.samples} | ${f2(p.p50)} ms | ${spread} ms | ${f2(p.p90)} ms | ${f2(p.p99)} ms | ${v === 'off' ? '—' : `${f2(p.p50 - off.p50)} ms`} |`
  }
  const noise = Math.max(...medians.off) - Math.min(...medians.off)
  const on = percentiles(samples.on)
  writeSection('payloads', `## Large-payload codec: cost for small payloads

${machineNote()}
Two stacks on one engine, side by side: an API process and a worker with the claim-check codec loaded (a bucket on moto,
loopback), and the same without it (\`SERVICE_PAYLOAD_REFS_ENABLED=false\`); tracing off in both. ${ROUNDS} interleaved rounds
of ${RUNS} sequential \`POST /workflow/run\` of \`hello\` (about 40-byte input and output, far below the 256 KiB threshold:
the codec passes every payload through) per stack, latency measured by the client.

${table(['Codec', 'Runs', 'p50', 'Round medians (min–max)', 'p90', 'p99', 'Added at p50'], VARIANTS.map(row))}

The codec alone, in the benchmark process: encode + decode of one such payload takes ${passThrough.ns.toFixed(0)} ns (mean of
${passThrough.iterations} in a row, after a warm-up), twice per run in the API and a few times in the worker: microseconds
against a run of about ${f2(off.p50)} ms.

Goal: nothing measurable. The codec adds ${f2(on.p50 - off.p50)} ms at p50; the round medians of the stack without it
spread over ${f2(noise)} ms (the machine's own noise), so the difference is ${Math.abs(on.p50 - off.p50) <= noise ? 'within' : '**above**'} that noise. For a small
payload the codec does one length comparison per payload in the API and in the worker; it never calls the bucket.
`)
} finally {
  await Promise.all([stack.stop(), s3.stop()])
}
