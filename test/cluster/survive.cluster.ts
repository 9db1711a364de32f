/**
 * Killing one API replica and one worker (SIGKILL, no shutdown of their own) under a steady load
 * of starts and runs loses no run and no request: clients send each request to the replicas in
 * turn and, when the connection fails, send it again to the other replica with the same
 * Idempotency-Key (what a load balancer's retry does), so a request that reached the killed
 * replica neither gets lost nor starts a second run. Every request that got a 2xx is kept: every
 * accepted start completes, every accepted run answered its result.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { apiUrl, kill, member, ready, replaced, request, sleep, type Answer } from './helpers.js'

const REPLICAS = [apiUrl('api-a'), apiUrl('api-b')]

interface Outcome {
  kind: 'start' | 'run'
  key: string
  answer?: Answer
  /** Replicas tried, with the network error of each failed attempt. */
  attempts: string[]
}

/** One logical request: replicas in turn from `first`, again with the same key when the connection fails. */
async function send (kind: Outcome['kind'], first: number): Promise<Outcome> {
  const key = randomUUID()
  const body = kind === 'start' ? { workflowName: 'spread', input: { steps: 3, delayMs: 300 } } : { workflowName: 'spread', input: { steps: 2, delayMs: 0 } }
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

t.test('SIGKILL of one API replica and one worker under load loses no run and no accepted request', async (t) => {
  t.ok(await ready('api-a') && await ready('api-b'), 'both replicas ready')
  const outcomes: Outcome[] = []
  const load = { on: true }
  let turn = 0
  // Four clients, each alternating starts and runs.
  const clients = Array.from({ length: 4 }, async (_, client) => {
    for (let i = 0; load.on; i++) outcomes.push(await send(i % 2 === 0 ? 'start' : 'run', (turn++ + client) % REPLICAS.length))
  })

  await sleep(4000)
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

  const unanswered = outcomes.filter((o) => o.answer === undefined)
  t.same(unanswered.map((o) => o.attempts), [], 'every request got an answer from a replica')
  const refused = outcomes.filter((o) => o.answer !== undefined && o.answer.status !== 200)
  t.same(refused.map((o) => ({ kind: o.kind, status: o.answer!.status, body: o.answer!.body })), [], 'every answer was a 200')
  const retried = outcomes.filter((o) => o.attempts.length > 1)
  t.comment(`${outcomes.length} requests (${outcomes.length - before} after the kill), ${retried.length} sent again to the other replica`)
  t.ok(outcomes.length > before, 'the load went on after the kill')

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
})
