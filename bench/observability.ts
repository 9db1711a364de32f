/**
 * `npm run bench -- observability`: what metrics and tracing cost on start throughput, three API
 * processes side by side (the method: the section's note below). Never asserted.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Agent, request } from 'undici'
import { closedLoop, f1, f2, median, processCpuMs, verdict } from './measure.js'
import { machineNote, table, writeSection } from './results.js'
import { startStack } from './stack.js'

const ROUNDS = Number(process.env.OBS_ROUNDS ?? 6)
const STARTS = Number(process.env.OBS_STARTS ?? 200)
const CONCURRENCY = Number(process.env.OBS_CONCURRENCY ?? 16)
const CATALOG = 'bench-observability'

type Variant = 'off' | 'metrics' | 'metrics+tracing'
const VARIANTS: Variant[] = ['off', 'metrics', 'metrics+tracing']
const TARGET: Record<Variant, number> = { off: 0, metrics: 0.03, 'metrics+tracing': 0.10 }

const machine = machineNote()
const stack = await startStack([CATALOG])

// The spans' destination: received and dropped, as a collector that keeps up would.
let exports = 0
const sink = createServer((req, res) => {
  req.resume()
  req.on('end', () => { exports++; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end() })
})
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`

const variantEnv: Record<Variant, Record<string, string>> = {
  off: { SERVICE_METRICS_ENABLED: 'false' },
  metrics: {},
  'metrics+tracing': { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'flowport-bench' }
}

const apis = await Promise.all(VARIANTS.map(async (v) => await stack.api(CATALOG, variantEnv[v])))
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 })
const rates: Record<Variant, number[]> = { off: [], metrics: [], 'metrics+tracing': [] }
/** CPU ms the API process spent per start: the cost itself, less blurred than throughput by the engine and the machine's load. */
const cpuPerStart: Record<Variant, number[]> = { off: [], metrics: [], 'metrics+tracing': [] }

async function startRound (base: string): Promise<number> {
  const body = JSON.stringify({ workflowName: 'hello', input: { name: 'bench' } })
  const { ms } = await closedLoop(STARTS, CONCURRENCY, async () => {
    const res = await request(`${base}/workflow/start`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body })
    await res.body.dump()
    if (res.statusCode !== 200) throw new Error(`start answered ${res.statusCode}`)
  })
  return STARTS / (ms / 1000)
}

try {
  // One warm-up round each: JIT, connection pools, the catalog cache.
  for (const [i] of VARIANTS.entries()) await startRound(apis[i].api.base)
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (round + k) % VARIANTS.length
      const cpuBefore = processCpuMs(apis[i].api.pid)
      const rate = await startRound(apis[i].api.base)
      const cpu = (processCpuMs(apis[i].api.pid) - cpuBefore) / STARTS
      rates[VARIANTS[i]].push(rate)
      cpuPerStart[VARIANTS[i]].push(cpu)
      console.log(`round ${round + 1}/${ROUNDS} ${VARIANTS[i]}: ${f1(rate)} starts/s, API ${f2(cpu)} CPU ms per start`)
    }
  }
} finally {
  await stack.stop()
  await agent.close()
  sink.close()
}

const off = median(rates.off)
const offCpu = median(cpuPerStart.off)
const rows = VARIANTS.map((v) => {
  const rate = median(rates[v])
  const overhead = 1 - rate / off
  const cpu = median(cpuPerStart[v])
  const target = v === 'off' ? '—' : `≤ ${TARGET[v] * 100} %`
  return `| ${v} | ${f1(rate)} (${rates[v].map(f1).join(', ')}) | ${v === 'off' ? '—' : `${(overhead * 100).toFixed(1)} %`} | ${target} | ${v === 'off' ? '' : verdict(overhead <= TARGET[v])} | ${f2(cpu)}${v === 'off' ? '' : ` (+${((cpu / offCpu - 1) * 100).toFixed(1)} %)`} |`
})
writeSection('observability', `## Observability: metrics and tracing on start throughput

${machine}
Three API processes side by side on one engine and one worker: \`off\` (SERVICE_METRICS_ENABLED=false, no OTEL settings),
\`metrics\` (the default: Prometheus metrics on, nobody scraping) and \`metrics+tracing\` (plus an OTLP/HTTP endpoint, every
request sampled; the sink answers 200 and keeps nothing, ${exports} export requests). ${ROUNDS} rounds of ${STARTS}
\`POST /workflow/start\` of hello, ${CONCURRENCY} in flight, to each API in turn (order rotating each round), after one warm-up
round each. Overhead = 1 − median starts/s of the variant ÷ median starts/s of \`off\`.

${table(['Variant', 'Starts/s, median (each round)', 'Overhead', 'Target', '', 'API CPU ms per start, median (vs off)'], rows)}

The round-to-round spread on this shared 2-core machine is of the same order as the differences: read the overhead
together with the per-round figures. Start throughput is bounded by the engine here, so the API's own CPU time per start
(from /proc, per round) is the closer measure of what metrics and tracing add. Reproduce: \`npm run bench -- observability\` (OBS_ROUNDS, OBS_STARTS, OBS_CONCURRENCY).
`)
