/**
 * Trace storage that accepts connections and never answers (a TCP server of the test's own as the
 * bucket's endpoint) must delay no step: a failed attempt's error reaches the engine at once and
 * its record is written behind, through a bounded queue whose drops are counted and logged once.
 * A worker process of the test's own (the production entry), with its metrics port.
 */
import t, { type Test } from 'tap'
import { resolve } from 'node:path'
import { request } from 'undici'
import { build, traceEnv } from './helpers/app.js'
import { freePort } from './helpers/processes.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { silentServer, type SilentServer } from './helpers/silent-server.js'
import { eventually, newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

/** A worker of the catalog whose bucket is `storage` (a server that never answers). */
function hangingWorker (t: Test, storage: SilentServer, catalog: string, env: Record<string, string> = {}) {
  return spawnWorker(t, {
    ...traceEnv(),
    SERVICE_CATALOG_ID: catalog,
    SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows/hurried'),
    SERVICE_TRACE_DIR: t.testdir({}),
    SERVICE_CLOUD_ENDPOINT: storage.url,
    // Only trace records go to the silent bucket.
    SERVICE_PAYLOAD_REFS_ENABLED: 'false',
    ...env
  }, process.cwd())
}

async function runHurried (t: Test, catalog: string, failures: number) {
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'hurried', input: { failures } } })
  t.equal(res.statusCode, 200)
  // Had any failure waited for its record, the step would have timed out (schedule-to-close 4.5 s < 5 s).
  t.match(res.json(), { status: 'completed', output: { attempts: failures + 1 } }, 'the last attempt ran and succeeded in time')
}

t.test('a step with 4.5 s for all its attempts succeeds after two failures although every record write hangs (5 s each); drops are counted and warned about once', async (t) => {
  const storage = await silentServer(t)
  const catalog = newId('trace-hang')
  const port = await freePort()
  const worker = hangingWorker(t, storage, catalog, {
    SERVICE_WORKER_METRICS_PORT: String(port),
    // One record in the queue: the second failure's record finds the first one's write still hanging.
    SERVICE_TRACE_WRITE_QUEUE_MAX: '1'
  })
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  await runHurried(t, catalog, 2)
  t.ok(await eventually(async () => storage.accepted(), (n) => n > 0) > 0, 'the record writes reach the storage, which never answers')

  const metrics = async () => parseMetrics(await (await request(`http://127.0.0.1:${port}/metrics`)).body.text())
  const dropped = (samples: Awaited<ReturnType<typeof metrics>>, reason: string) => total(samples, 'flowport_trace_writes_dropped_total', { reason })
  const first = await metrics()
  t.equal(dropped(first, 'queue_full'), 1, 'the second record found the queue full: dropped at once')
  // The first record's write ends with the store's timeout (5 s); this only guards against a hang.
  const later = await eventually(metrics, (samples) => dropped(samples, 'failed') === 1 && total(samples, 'flowport_trace_writes_pending') === 0)
  t.equal(dropped(later, 'failed'), 1, 'the first record was dropped when its write timed out')
  t.equal(total(later, 'flowport_trace_writes_pending'), 0, 'nothing left in the queue')
  t.equal(worker.output().match(/attempt records are being dropped/g)?.length, 1, 'two drops, one warning')
  t.match(worker.output(), /attempt records are being dropped \(queue_full: the queue holds its limit of 1\)/)
})

t.test('a graceful shutdown waits for queued records at most 5 s, then drops them with one warning and exits', async (t) => {
  const storage = await silentServer(t)
  const catalog = newId('trace-hang-stop')
  const worker = hangingWorker(t, storage, catalog)
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  // Three records, written one after the other, each until the store's 5 s timeout: 15 s to drain.
  await runHurried(t, catalog, 3)
  t.equal(await worker.kill('SIGTERM'), 0, 'the worker stopped cleanly')
  t.match(worker.output(), /Trace: \d of 3 attempt records not written within 5000 ms of shutdown; dropped/)
})
