/**
 * Killing one API replica and one worker (SIGKILL, no shutdown of their own) under a steady load
 * of starts and runs loses no run and no request: clients send each request to the replicas in
 * turn and, when the connection fails, send it again to the other replica with the same
 * Idempotency-Key (what a load balancer's retry does), so a request that reached the killed
 * replica neither gets lost nor starts a second run. Every request that got a 2xx is kept: every
 * accepted start completes, every accepted run answered its result, and the engine lists exactly
 * one run per accepted request. One request is made to be cut by the kill: a `/workflow/run` whose
 * run is known to be open on the engine when its replica dies, so it is certainly sent again.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { Client, Connection } from '@temporalio/client'
import { apiUrl, clusterState, kill, member, ready, replaced, request, sleep, type Answer } from './helpers.js'
import { until } from '../helpers/processes.js'

const REPLICAS = [apiUrl('api-a'), apiUrl('api-b')]
const WORKFLOW = 'spread'
// The cut request's run sleeps this long between its two steps: the kill lands well before it ends.
const CUT_RUN_DELAY_MS = 15_000

interface Outcome {
  kind: 'start' | 'run'
  key: string
  answer?: Answer
  /** Replicas tried, with the network error of each failed attempt. */
  attempts: string[]
}

/** One logical request: replicas in turn from `first`, again with the same key when the connection fails. */
async function send (kind: Outcome['kind'], first: number, body: Record<string, unknown> = kind === 'start'
  ? { workflowName: WORKFLOW, input: { steps: 3, delayMs: 300 } }
  : { workflowName: WORKFLOW, input: { steps: 2, delayMs: 0 } }): Promise<Outcome> {
  const key = randomUUID()
  const outcome: Outcome = { kind, key, attempts: [] }
  for (let attempt = 0; attempt < 6; attempt++) {
    const base = REPLICAS[(first + attempt) % REPLICAS.length]
    try {
      outcome.answer = await request(base, 'POST', `/workflow/${kind}`, body, { 'idempotency-key': key })
      outcome.attempts.push(base)
      return outcome
    } catch (err) {
      outcome.attempts.push(`${base}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : String(err)}`)
      await sleep(100)
    }
  }
  return outcome
}

/** Every run of `WORKFLOW` the engine's visibility lists as started at or after `since`: workflow id → run ids. */
async function listedRuns (client: Client, since: Date): Promise<Map<string, string[]>> {
  const runs = new Map<string, string[]>()
  for await (const execution of client.workflow.list({ query: `WorkflowType = '${WORKFLOW}' AND StartTime >= '${since.toISOString()}'` })) {
    runs.set(execution.workflowId, [...(runs.get(execution.workflowId) ?? []), execution.runId])
  }
  return runs
}

t.test('SIGKILL of one API replica and one worker under load loses no run and no accepted request', async (t) => {
  const { temporal } = clusterState()
  const connection = await Connection.connect({ address: temporal.address })
  t.teardown(async () => { await connection.close() })
  const client = new Client({ connection, namespace: temporal.namespace })
  // The test files run one after the other: runs of WORKFLOW started from now on are this test's.
  const since = new Date()
  t.ok(await ready('api-a') && await ready('api-b'), 'both replicas ready')
  const outcomes: Outcome[] = []
  const load = { on: true }
  let turn = 0
  // Four clients, each alternating starts and runs.
  const clients = Array.from({ length: 4 }, async (_, client) => {
    for (let i = 0; load.on; i++) outcomes.push(await send(i % 2 === 0 ? 'start' : 'run', (turn++ + client) % REPLICAS.length))
  })

  await sleep(4000)
  // The request the kill cuts: sent to api-a first, with a workflow id of its own so that the test
  // can see its run open on the engine (through api-b) before killing api-a. Its connection is
  // then open, waiting for the result, when api-a dies, so the client sends it again to api-b.
  const cutId = `survive-cut-${randomUUID()}`
  const cut = send('run', 0, { workflowName: WORKFLOW, workflowId: cutId, input: { steps: 2, delayMs: CUT_RUN_DELAY_MS } })
  let cutRunId: string | undefined
  t.ok(await until(async () => {
    const status = await request(apiUrl('api-b'), 'GET', `/workflow/${cutId}/status`)
    cutRunId = status.body?.runId
    return status.status === 200 && status.body.status === 'running'
  }, 120, 250), 'the cut request\'s run is open before the kill')
  const before = outcomes.length
  const apiPid = kill('api-a')
  const workerPid = kill('worker-a')
  t.comment(`killed api-a (${apiPid}) and worker-a (${workerPid}) after ${before} requests`)
  t.ok(await replaced('worker-a', workerPid), 'worker-a was started again')
  t.ok(await replaced('api-a', apiPid), 'api-a was started again')
  // Some load on the restarted members too.
  await sleep(3000)
  load.on = false
  await Promise.all(clients)
  const cutOutcome = await cut
  outcomes.push(cutOutcome)

  const unanswered = outcomes.filter((o) => o.answer === undefined)
  t.same(unanswered.map((o) => o.attempts), [], 'every request got an answer from a replica')
  const refused = outcomes.filter((o) => o.answer !== undefined && o.answer.status !== 200)
  t.same(refused.map((o) => ({ kind: o.kind, status: o.answer!.status, body: o.answer!.body })), [], 'every answer was a 200')
  const retried = outcomes.filter((o) => o.attempts.length > 1)
  t.comment(`${outcomes.length} requests (${outcomes.length - before} after the kill), ${retried.length} sent again to the other replica`)
  t.ok(outcomes.length > before, 'the load went on after the kill')
  // Which load requests the kill cuts depends on timing, so only the cut request's retry is asserted.
  t.ok(cutOutcome.attempts.length > 1 && cutOutcome.attempts[0]!.startsWith(`${REPLICAS[0]}: `),
    `the cut request failed on api-a and was sent again (${cutOutcome.attempts.join(' → ')})`)
  t.match(cutOutcome.answer?.body, { workflowId: cutId, runId: cutRunId, status: 'completed' }, 'and answered the result of the run api-a had started')

  const runs = outcomes.filter((o) => o.kind === 'run' && o.answer?.status === 200)
  t.same(runs.filter((o) => o.answer!.body.status !== 'completed' || o.answer!.body.output.pids.length !== 2).map((o) => o.answer!.body), [],
    'every accepted /workflow/run answered its completed result')

  const starts = outcomes.filter((o) => o.kind === 'start' && o.answer?.status === 200)
  const ids = starts.map((o) => o.answer!.body.workflowId as string)
  t.equal(new Set(ids).size, ids.length, 'one run per request, retries included')
  const results = await Promise.all(ids.map(async (id) => {
    for (let i = 0; i < 240; i++) {
      const res = await request(REPLICAS[i % 2], 'GET', `/workflow/${id}/result`).catch(() => undefined)
      if (res?.status === 200) return res.body
      await sleep(500)
    }
    return { workflowId: id, status: 'still open' }
  }))
  t.same(results.filter((r) => r.status !== 'completed' || r.output.pids.length !== 3), [], `all ${ids.length} accepted starts completed every step`)

  const pids = new Set([...runs.map((o) => o.answer!.body), ...results].flatMap((r) => r.output.pids as number[]))
  t.ok(pids.has(member('worker-a').pid), 'the restarted worker-a took steps')

  // The engine's own count: exactly the runs of the accepted requests, no run started by a request
  // that was sent twice. Visibility is eventually consistent: wait until it lists every accepted run.
  const acceptedRequests = outcomes.filter((o) => o.answer?.status === 200)
  const accepted = new Map(acceptedRequests.map((o) => [o.answer!.body.workflowId as string, o.answer!.body.runId as string]))
  t.equal(accepted.size, acceptedRequests.length, 'each accepted request answered a workflow id of its own')
  let listed = new Map<string, string[]>()
  const complete = await until(async () => {
    listed = await listedRuns(client, since)
    return [...accepted].every(([workflowId, runId]) => listed.get(workflowId)?.includes(runId) === true)
  }, 240, 500)
  t.ok(complete, `the engine lists every one of the ${accepted.size} accepted runs`)
  t.equal([...listed.values()].flat().length, acceptedRequests.length, 'the engine lists one run of the workflow per accepted request, no more')
  t.same([...listed.keys()].filter((id) => !accepted.has(id)), [], 'and none that no accepted request answered')
})
