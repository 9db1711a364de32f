/**
 * Two workers on one catalog: the engine hands the steps of one run to both, and both publish the
 * same catalog without replacing each other's (the catalog workflow keeps its one run).
 * The steps run in parallel: the engine dispatches steps a workflow task schedules eagerly to the
 * worker that ran that task (Temporal's eager activity execution, on by default), so the steps of
 * a sequential run stay on one worker, and only a fan-out spreads one run (docs/cluster.md).
 */
import t from 'tap'
import { Client, Connection } from '@temporalio/client'
import { catalogWorkflowId } from '@flowport/core/contract'
import { apiUrl, clusterState, member, ready, request } from './helpers.js'

const CATALOG = 'main'

t.test('the parallel steps of one run land on both workers', async (t) => {
  t.ok(await ready('worker-a') && await ready('worker-b'), 'both workers ready')
  const workers = new Set([member('worker-a').pid, member('worker-b').pid])
  // Usually the first run shows it; a few more cover an unlucky draw of the engine's dispatch.
  let pids: number[] = []
  for (let attempt = 0; attempt < 5 && new Set(pids).size < 2; attempt++) {
    const res = await request(apiUrl(attempt % 2 === 0 ? 'api-a' : 'api-b'), 'POST', '/workflow/run', { workflowName: 'spread', input: { steps: 30, delayMs: 0, parallel: true } })
    t.equal(res.status, 200)
    pids = res.body.output.pids
    t.comment(`run ${attempt + 1}: steps per worker ${JSON.stringify([...workers].map((w) => pids.filter((p) => p === w).length))}`)
  }
  t.same(new Set(pids), workers, 'one run\'s steps ran on worker-a and on worker-b, and nowhere else')
})

t.test('both workers publish the same catalog without fighting', async (t) => {
  const { temporal } = clusterState()
  const connection = await Connection.connect({ address: temporal.address })
  t.teardown(async () => { await connection.close() })
  const client = new Client({ connection, namespace: temporal.namespace })

  // Both poll the catalog's task queue, each under its own identity.
  const { pollers } = await client.workflowService.describeTaskQueue({ namespace: temporal.namespace, taskQueue: { name: CATALOG }, taskQueueType: 2 })
  const identities = new Set((pollers ?? []).map((p) => p.identity))
  for (const name of ['worker-a', 'worker-b']) t.ok([...identities].some((i) => i?.startsWith(`${member(name).pid}@`)), `${name} polls ${CATALOG}`)

  // Every worker start (the restarts of the other tests included) published the same catalog: the
  // catalog workflow still runs its first run, no publisher ever replaced it.
  const runs = []
  for await (const execution of client.workflow.list({ query: `WorkflowId = "${catalogWorkflowId(CATALOG)}"` })) runs.push(execution)
  t.equal(runs.length, 1, 'one run of the catalog workflow')
  t.equal(runs[0]?.status.name, 'RUNNING')
  const history = await client.workflow.getHandle(catalogWorkflowId(CATALOG)).fetchHistory()
  const updates = history.events?.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes) ?? []
  t.equal(updates.length, 0, 'no replace update: each publisher found its catalog already there')

  const [a, b] = await Promise.all([request(apiUrl('api-a'), 'GET', `/workflow/catalog/${CATALOG}`), request(apiUrl('api-b'), 'GET', `/workflow/catalog/${CATALOG}`)])
  t.equal(a.status, 200)
  // `workers` is live (each replica's last look at the pollers); the catalog itself is the same.
  const published = ({ workers: _live, ...catalog }: Record<string, unknown>) => catalog
  t.same(published(a.body), published(b.body), 'both replicas serve the same catalog')
})
