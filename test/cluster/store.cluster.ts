/**
 * One object store for the whole topology (cli/object-store.ts): every worker writes attempt
 * records and traces, and every API replica reads them and keeps large payloads, in the same
 * bucket, while each member's trace directory is its own (no shared volume). So a trace is whole
 * whichever worker ran which attempt and whichever replica is asked, and a payload uploaded
 * through one replica is read through the other.
 */
import t from 'tap'
import { createHash } from 'node:crypto'
import { apiUrl, clusterState, member, ready, request } from './helpers.js'
import { until } from '../helpers/processes.js'

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex')

interface Attempt { attempt: number, status: string, error: { message: string } | null }

t.test('a run whose failed attempts ran on worker-a has its whole trace, every attempt, through api-b', async (t) => {
  t.ok(await ready('worker-a') && await ready('worker-b'), 'both workers ready')
  const { store } = clusterState()
  t.match(store, { endpoint: /^http:\/\/127\.0\.0\.1:\d+$/, bucket: 'flowport' }, 'the cluster runs one store')
  const workerA = member('worker-a').pid
  const workers = new Set([workerA, member('worker-b').pid])
  const failedOn = (a: Attempt) => Number(/on pid (\d+)/.exec(a.error?.message ?? '')?.[1])
  // Which worker runs an attempt is the engine's choice: a few runs make one whose failures include worker-a.
  let attempts: Attempt[] = []
  let found = false
  for (let run = 0; run < 8 && !found; run++) {
    const res = await request(apiUrl('api-a'), 'POST', '/workflow/run', { workflowName: 'retried', input: { failures: 3 } })
    t.equal(res.status, 200)
    t.match(res.body, { status: 'completed' })
    // The answer names the bucket's copy only once the worker has written it, maybe a moment after the close.
    const remote = res.body.trace.destinations.remote as string | null
    t.ok(remote === null || /^s3:\/\/flowport\/traces\//.test(remote), 'the bucket\'s copy, if written already')
    let log: { status: number, body: any } | undefined
    t.ok(await until(async () => { log = await request(apiUrl('api-b'), 'GET', `/workflow/${res.body.workflowId}/trace-log`); return log.body?.source === 'remote' }),
      'api-b reads the trace from the bucket')
    t.match(log!.body.location, /^s3:\/\/flowport\/traces\//)
    const again = await request(apiUrl('api-b'), 'GET', `/workflow/${res.body.workflowId}/result`)
    t.match(again.body, { trace: { destinations: { remote: /^s3:\/\/flowport\/traces\// } } }, 'and a result read then names it')
    attempts = log!.body.trace.nodes[0].attempts as Attempt[]
    t.comment(`run ${run + 1}: failed attempts on ${attempts.slice(0, 3).map((a) => failedOn(a) === workerA ? 'worker-a' : 'worker-b').join(', ')}`)
    found = attempts.slice(0, 3).some((a) => failedOn(a) === workerA)
  }
  t.ok(found, 'a run had failed attempts on worker-a')
  t.same(attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'failed'], [3, 'failed'], [4, 'completed']], 'every attempt, none unknown')
  for (const a of attempts.slice(0, 3)) t.ok(workers.has(failedOn(a)), `attempt ${a.attempt} keeps its error, from the worker that ran it`)
})

t.test('a large payload uploaded through api-a is started and read through api-b, and the other way', async (t) => {
  const text = createHash('sha256').update('seed').digest('hex').repeat(40_000) // 2.56 MB, past the 1 MiB inline limit
  const inputJson = JSON.stringify({ text })
  const upload = await request(apiUrl('api-a'), 'POST', '/payloads')
  t.equal(upload.status, 200, 'api-a hands out an upload URL')
  t.equal((await fetch(upload.body.uploadUrl, { method: 'PUT', body: inputJson })).status, 200, 'the store takes the upload')

  const run = await request(apiUrl('api-b'), 'POST', '/workflow/run', { workflowName: 'echo', inputRef: upload.body.payloadRef })
  t.equal(run.status, 200, 'api-b starts the run with api-a\'s upload')
  t.match(run.body, { status: 'completed', output: null, input: null, outputRef: { payloadRef: /^sha256\// } })
  const fetched = async (url: string) => await (await fetch(url)).text()
  t.equal(sha256(await fetched(run.body.outputRef.url)), sha256(inputJson), 'api-b\'s link downloads the output')

  const read = await request(apiUrl('api-a'), 'GET', `/workflow/${run.body.workflowId}/result`)
  t.equal(read.status, 200)
  t.equal(read.body.outputRef.payloadRef, run.body.outputRef.payloadRef, 'api-a names the same stored output')
  t.equal(sha256(await fetched(read.body.outputRef.url)), sha256(inputJson), 'and its link downloads it')
  t.equal(sha256(await fetched(read.body.inputRef.url)), sha256(inputJson), 'the input too')
})
