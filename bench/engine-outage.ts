/**
 * `npx tsx --conditions=flowport-source bench/engine-outage.ts`: how fast the API answers while the
 * engine is away and how soon it serves again once the engine is back (the method: the section's
 * note below). Measured, never asserted.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { formatMs } from '@flowport/core/duration'
import { buildApp } from '../app.js'
import { startEngine, type Engine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { machineNote, table, writeSection } from './results.js'
import { percentiles, verdict } from './measure.js'

const CYCLES = Number(process.env.OUTAGE_CYCLES ?? 3)
const POLL_MS = Number(process.env.POLL_MS ?? 50)
/** How long each outage lasts before the engine is started again (its start-up comes on top). */
const DOWN_MS = Number(process.env.OUTAGE_DOWN_MS ?? 3000)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const ms = (v: number) => (Number.isNaN(v) ? '—' : formatMs(v))

interface Sample { at: number, ms: number, status: number }

/** Polls `url` every POLL_MS while `active()`, one request at a time, recording every answer. */
async function poll (url: string, active: () => boolean, samples: Sample[]): Promise<void> {
  while (active()) {
    const at = performance.now()
    const status = await fetch(url).then(async (r) => { await r.arrayBuffer(); return r.status }, () => 0)
    samples.push({ at, ms: performance.now() - at, status })
    await sleep(POLL_MS)
  }
}

/**
 * Time from `from` until the first answer `status` to a request sent after `since` (0 when it came
 * before `from`), and the latencies of all such answers.
 */
function firstAfter (samples: Sample[], from: number, status: number, since = from) {
  const after = samples.filter((s) => s.at >= since)
  const first = after.find((s) => s.status === status)
  return { firstMs: first ? Math.max(0, first.at + first.ms - from) : NaN, latencies: after.filter((s) => s.status === status).map((s) => s.ms) }
}

const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-bench-outage-')), 'temporal.db')
let engine: Engine = await startEngine({ dbFile })
const port = Number(engine.address.split(':')[1])
const catalog = `bench-outage-${randomUUID()}`
const worker = spawn(process.execPath, workerNodeArgs, {
  env: { ...process.env, TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: '', LOG_LEVEL: 'error' },
  stdio: 'ignore'
})
const app = await buildApp({ config: loadConfig({ ...process.env, TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog, LOG_LEVEL: 'silent' }) })
const base = await app.listen({ port: 0, host: '127.0.0.1' })

interface Cycle { detectMs: number, down503: number[], readyDown: number[], streamEndMs: number, readyBackMs: number, statusBackMs: number, startMs: number, other: number }
const cycles: Cycle[] = []
try {
  while ((await fetch(`${base}/ready`)).status !== 200) await sleep(250)
  const connection = await Connection.connect({ address: engine.address })
  const workflowId = `bench-outage-${randomUUID()}`
  await new Client({ connection }).workflow.start('nobody-runs-this', { taskQueue: `no-worker-${randomUUID()}`, workflowId, args: [] })
  await connection.close()

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const status: Sample[] = []
    const ready: Sample[] = []
    let polling = true
    const pollers = [poll(`${base}/workflow/${workflowId}/status`, () => polling, status), poll(`${base}/ready`, () => polling, ready)]
    // A stream that is open when the engine dies: time until its server_error arrives.
    const stream = await fetch(`${base}/workflow/${workflowId}/history/stream`, { headers: { accept: 'text/event-stream' } })
    const reader = stream.body!.getReader()
    let streamEnd = NaN
    const streamDone = (async () => {
      let text = ''
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        text += Buffer.from(r.value).toString()
        if (text.includes('event: server_error')) { streamEnd = performance.now(); break }
      }
    })().catch(() => {})
    await sleep(1000)

    const killedAt = performance.now()
    engine.process.kill('SIGKILL')
    await new Promise((resolve) => engine.process.once('exit', resolve))
    await sleep(DOWN_MS)
    const startAt = performance.now()
    engine = await startEngine({ dbFile, port })
    const backAt = performance.now()
    while (status.at(-1)?.status !== 200 || ready.at(-1)?.status !== 200) await sleep(POLL_MS)
    polling = false
    await Promise.all(pollers)
    await reader.cancel().catch(() => {})
    await streamDone

    const downStatus = firstAfter(status.filter((s) => s.at < backAt), killedAt, 503)
    cycles.push({
      detectMs: downStatus.firstMs,
      down503: downStatus.latencies,
      readyDown: firstAfter(ready.filter((s) => s.at < backAt), killedAt, 503).latencies,
      streamEndMs: streamEnd - killedAt,
      // The API may serve again before startEngine's own check has seen the engine: 0 then.
      readyBackMs: firstAfter(ready, backAt, 200, killedAt).firstMs,
      statusBackMs: firstAfter(status, backAt, 200, killedAt).firstMs,
      startMs: backAt - startAt,
      other: [...status, ...ready].filter((s) => s.at >= killedAt && s.status !== 503 && s.status !== 200).length
    })
    console.log(`cycle ${cycle + 1}:`, JSON.stringify({ ...cycles.at(-1), down503: cycles.at(-1)!.down503.length, readyDown: cycles.at(-1)!.readyDown.length }))
  }
} finally {
  await app.close()
  worker.kill('SIGKILL')
  await engine.stop()
}

const all503 = cycles.flatMap((c) => c.down503)
const allReady503 = cycles.flatMap((c) => c.readyDown)
const rows = cycles.map((c, i) => `| ${i + 1} | ${ms(c.detectMs)} | ${ms(c.streamEndMs)} | ${c.down503.length}: p50 ${ms(percentiles(c.down503).p50)}, max ${ms(Math.max(...c.down503))} | ` +
  `${c.readyDown.length}: p50 ${ms(percentiles(c.readyDown).p50)}, max ${ms(Math.max(...c.readyDown))} | ${ms(c.readyBackMs)} | ${ms(c.statusBackMs)} | ${ms(c.startMs)} | ${c.other} |`)

writeSection('engine-outage', `## Engine outage: fast 503s and recovery (issue 25, item 3)

${machineNote()}
\`npx tsx --conditions=flowport-source bench/engine-outage.ts\` (OUTAGE_CYCLES=${CYCLES}, POLL_MS=${POLL_MS}, OUTAGE_DOWN_MS=${DOWN_MS}).
The API in the benchmark process, its own engine (SQLite file) and worker. Each cycle: a client polls
\`GET /workflow/{id}/status\` and \`GET /ready\` (one request at a time, every ${POLL_MS} ms) and follows the run's history
stream; the engine is killed with SIGKILL, left down ${DOWN_MS} ms, and started again on the same port and data.

| Figure | Target | Measured | |
|---|---|---|---|
| Latency of 503 EngineUnavailableError (with Retry-After) while the engine is down, all cycles | ≤ 1 s | p50 ${ms(percentiles(all503).p50)}, p99 ${ms(percentiles(all503).p99)}, max ${ms(Math.max(...all503))} (${all503.length} answers) | ${verdict(Math.max(...all503) <= 1000)} |
| Latency of \`/ready\` 503 while the engine is down | fast | p50 ${ms(percentiles(allReady503).p50)}, max ${ms(Math.max(...allReady503))} (${allReady503.length} answers) | |
| Engine back (answers its health check) → first \`/ready\` 200, worst cycle | ≤ 3 s | ${ms(Math.max(...cycles.map((c) => c.readyBackMs)))} | ${verdict(Math.max(...cycles.map((c) => c.readyBackMs)) <= 3000)} |
| Engine back → first status 200, worst cycle | ≤ 3 s | ${ms(Math.max(...cycles.map((c) => c.statusBackMs)))} | ${verdict(Math.max(...cycles.map((c) => c.statusBackMs)) <= 3000)} |

${table(['Cycle', 'Kill → first 503', 'Kill → open stream\'s server_error', 'status 503s', '/ready 503s', 'Back → /ready 200', 'Back → status 200', 'Engine start-up', 'Other statuses'], rows)}

"Back" is the moment \`startEngine\` saw the restarted engine answer its gRPC health check (it checks every 200 ms), so
the recovery figures include up to that much of the engine's own start. Before the breaker (issue 25): 503s took
10–15 s (median 12 s), \`/ready\` 3 s to say 503 and 16.5 s to turn 200 again.
`)
