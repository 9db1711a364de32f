/**
 * A probe for one engine setting at a time (docs/performance.md): a dev server with the given
 * dynamic configuration, the production worker serving the examples, N sequential runs through the
 * raw client, and the medians of each part of a run from its event times. Not a benchmark of
 * record (bench/latency.ts is). Knobs: DC="key=json,key=json" (dynamic configuration), N (runs),
 * WF and INPUT (workflow and its JSON input; default `hello`), DBFILE (SQLite file instead of
 * memory), METRICS=1 (the engine's Prometheus text before and after, in /tmp/m-before.txt and
 * /tmp/m-after.txt, to diff). `npx tsx --conditions=flowport-source bench/run-probe.ts`
 */
import { spawn } from 'node:child_process'
import { Client, Connection } from '@temporalio/client'
import { startEngine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'

const N = Number(process.env.N ?? 40)
const dc = Object.fromEntries((process.env.DC ?? '').split(',').filter(Boolean).map((kv) => { const [k, v] = kv.split('='); return [k, JSON.parse(v)] }))
const engine = await startEngine({ dynamicConfig: dc, dbFile: process.env.DBFILE })
const env = { ...process.env, TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: engine.namespace, SERVICE_CATALOG_ID: 'probe', LOG_LEVEL: 'warn' }
const worker = spawn(process.execPath, workerNodeArgs, { env, stdio: ['ignore', 'inherit', 'inherit'] })
const connection = await Connection.connect({ address: engine.address })
const client = new Client({ connection, namespace: engine.namespace })
const median = (a: number[]) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)] }
const metrics = async () => await (await fetch(engine.metricsUrl)).text()
try {
  for (;;) { try { await client.workflow.execute('hello', { taskQueue: 'probe', workflowId: 'warm-' + Date.now(), args: [{ name: 'x' }] }); break } catch { await new Promise((r) => setTimeout(r, 500)) } }
  for (let i = 0; i < 5; i++) await client.workflow.execute('hello', { taskQueue: 'probe', workflowId: `w${i}-` + Date.now(), args: [{ name: 'x' }] })
  const before = await metrics()
  const times: number[] = []; const ids: string[] = []
  for (let i = 0; i < N; i++) {
    const id = `p${i}-${Date.now()}`; const t = performance.now()
    await client.workflow.execute(process.env.WF ?? 'hello', { taskQueue: 'probe', workflowId: id, args: [JSON.parse(process.env.INPUT ?? '{"name":"x"}')] })
    times.push(performance.now() - t); ids.push(id)
  }
  const after = await metrics()
  const parts: Record<string, number[]> = { firstDispatch: [], firstTask: [], stepDispatch: [], step: [], secondDispatch: [], secondTask: [], total: [] }
  for (const id of ids) {
    const ev = (await client.workflow.getHandle(id).fetchHistory()).events ?? []
    const at = (type: number, nth = 0) => { const e = ev.filter((x) => x.eventType === type)[nth]; return e?.eventTime ? Number(e.eventTime.seconds) * 1000 + (e.eventTime.nanos ?? 0) / 1e6 : NaN }
    parts.firstDispatch.push(at(6) - at(1)); parts.firstTask.push(at(7) - at(6)); parts.stepDispatch.push(at(11) - at(10)); parts.step.push(at(12) - at(11))
    parts.secondDispatch.push(at(6, 1) - at(12)); parts.secondTask.push(at(7, 1) - at(6, 1)); parts.total.push(at(2) - at(1))
  }
  console.log(JSON.stringify({ dc, p50: median(times).toFixed(1), ...Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, median(v).toFixed(1)])) }))
  if (process.env.METRICS) { const { writeFileSync } = await import('node:fs'); writeFileSync('/tmp/m-before.txt', before); writeFileSync('/tmp/m-after.txt', after) }
} finally {
  worker.kill('SIGTERM'); await new Promise((r) => worker.once('exit', r)); await connection.close(); await engine.stop()
}
