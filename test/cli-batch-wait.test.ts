/**
 * `flowport batch` started while the engine runs another batch: the API answers 429 with
 * Retry-After (the engine runs one batch at a time, docs/batch.md); the command says on stderr that
 * it waits, tries again after Retry-After, and starts its batch once the other one ends, or gives
 * up with the 429 after its bounded tries.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import protoRoot from '@temporalio/proto'
import { cli, flowport, listening } from './helpers/flowport-cli.js'
import { eventually, start } from './helpers/workflows.js'
import { RATE_LIMITED_TRIES } from '../cli/client/retry-after.js'

const { BatchOperationState } = protoRoot.temporal.api.enums.v1
/** The engine's batcher: its workflow type and the namespace division its runs are listed in (what StartBatchOperation counts). */
const BATCHER_WORKFLOW_TYPE = 'temporal-sys-batch-workflow'
const BATCHER_DIVISION = 'TemporalBatcher'

t.test('a batch started while another runs waits Retry-After and starts once the other ends; without an end it gives up after its tries', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const namespace = app.config.TEMPORAL_NAMESPACE
  const prefix = `cli-batch-wait-${randomUUID()}-`
  for (let i = 0; i < 2; i++) await start(t, app, 'approval', { label: `w${i}` }, `${prefix}${i}`)
  const query = `WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace, query })).count), (c) => c === 2)

  // A real batch ends too fast to be caught running (docs/batch.md): the first batch is a run of the
  // batcher's type in its division on a queue nobody polls, which the engine counts as a running batch.
  const jobId = randomUUID()
  await app.engine.client.workflow.start(BATCHER_WORKFLOW_TYPE, {
    taskQueue: `no-batcher-${jobId}`, workflowId: jobId, args: [], searchAttributes: { TemporalNamespaceDivision: [BATCHER_DIVISION] }
  })
  t.teardown(async () => { await app.engine.client.workflow.getHandle(jobId).terminate('test over').catch(() => undefined) })
  await eventually(async () => (await app.engine.client.workflowService.listBatchOperations({ namespace, pageSize: 100 })).operationInfo ?? [],
    (ops) => ops.some((op) => op.jobId === jobId && op.state === BatchOperationState.BATCH_OPERATION_STATE_RUNNING), 240)

  const args = ['batch', 'terminate', '--query', query, '--reason', 'after the other one', '--json']
  const refused = await flowport(args, { env })
  t.equal(refused.code, 3, 'the first batch never ends: the command gives up with the 429')
  t.equal(refused.stdout, '', 'no batch started')
  t.equal([...refused.stderr.matchAll(/waiting 3 s as the API asks \(Retry-After\)/g)].length, RATE_LIMITED_TRIES - 1, 'it said so before each wait')
  t.match(refused.stderr, /RateLimitedError: The engine is running as many batches as it runs at once/, 'then the 429 itself')

  const waiting = cli(args, { env })
  t.ok(await waiting.waitFor(/waiting 3 s as the API asks/), 'the second command waits its turn')
  await app.engine.client.workflow.getHandle(jobId).terminate('the first batch is over')
  t.equal(await waiting.exited, 0, waiting.stderr())
  const started = JSON.parse(waiting.stdout())
  t.match(started, { batchId: String, matched: 2 }, 'its batch started once the other one ended')
})
