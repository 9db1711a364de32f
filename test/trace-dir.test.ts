/**
 * A trace directory the process cannot write (the image once defaulted to one): one warning line
 * at start naming the setting and the path, the bucket still gets every trace, and no result names
 * the local file that is never written.
 */
import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { TraceStore } from '@flowport/core/trace'
import { build } from './helpers/app.js'
import { newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { until } from './helpers/processes.js'

// Not writable even by root: a directory under a file.
const UNWRITABLE = '/dev/null/traces'

t.test('worker and API with an unwritable SERVICE_TRACE_DIR: a warning, traces in the bucket, no local destination named', async (t) => {
  const catalog = newId('trace-dir')
  const worker = spawnWorker(t, { SERVICE_TRACE_DIR: UNWRITABLE, SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows') }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  t.match(worker.output(), `SERVICE_TRACE_DIR=${UNWRITABLE} cannot be written (ENOTDIR): traces are kept in the bucket only; set SERVICE_TRACE_DIR to a directory this process can write`,
    'the worker says so in one line at start')

  const app = await build(t, { SERVICE_CATALOG_ID: catalog, SERVICE_TRACE_DIR: UNWRITABLE })
  const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'flaky', input: { failures: 1 } } })
  t.equal(res.statusCode, 200)
  const result = res.json<{ workflowId: string, status: string, trace: { destinations: { local: string | null, remote: string | null } } }>()
  t.equal(result.status, 'completed')
  t.equal(result.trace.destinations.local, null, 'the result names no local file')

  let log: { source?: string, trace?: { nodes: Array<{ attempts: Array<{ status: string }> }> } } = {}
  t.ok(await until(async () => {
    log = (await app.inject({ method: 'GET', url: `/workflow/${result.workflowId}/trace-log` })).json()
    return log.source === 'remote'
  }), 'the trace is written to the bucket')
  t.same(log.trace!.nodes[0].attempts.map((a) => a.status), ['failed', 'completed'], 'with its failed attempt')
  const reread = (await app.inject({ method: 'GET', url: `/workflow/${result.workflowId}/result` })).json<typeof result>()
  t.match(reread.trace.destinations, { local: null, remote: /^s3:\/\// }, 'once written, the result names only the bucket')
  t.notMatch(worker.output(), /copy could not be written/, 'no failing write per run')
})

t.test('without a bucket the line says that no trace is kept, and nothing local is named or read', async (t) => {
  const store = new TraceStore({ dir: UNWRITABLE, s3: null, maxValueBytes: 65_536, sweepMs: 5000, lookbackMs: 0, localRetentionMs: 0, writeQueueMax: 10 })
  t.equal(await store.checkLocalDir(), `SERVICE_TRACE_DIR=${UNWRITABLE} cannot be written (ENOTDIR): no trace is kept; set SERVICE_TRACE_DIR to a directory this process can write`)
  t.same(store.destinations('w', 'r'), { local: null, remote: null })
  t.equal(await store.readLocal('w', 'r'), null)
  t.same(await store.readAttempts('w', 'r'), [])

  const dir = join(mkdtempSync(join(tmpdir(), 'flowport-trace-dir-')), 'made')
  const writable = new TraceStore({ ...store.settings, dir })
  t.equal(await writable.checkLocalDir(), null, 'a writable directory passes (made when missing)')
  t.equal(writable.destinations('w', 'r').local?.startsWith(dir), true, 'and is named')
})
