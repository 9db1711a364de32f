/**
 * The dev stack supervises its children: a worker or engine killed at any moment (mid-run, or
 * while the other one is starting) is restarted, the API process stays the same, and every run
 * started before completes. Engine, worker and API here are this test's own stack.
 */
import t from 'tap'
import { Client, Connection } from '@temporalio/client'
import { killStack, startStack, status, survivors, descendants, until, type Stack } from './helpers/processes.js'

t.setTimeout(900_000)

async function startRun (stack: Stack): Promise<{ workflowId: string, runId: string }> {
  const res = await fetch(`${stack.base}/workflow/start`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'sleepy', input: { steps: 5, delayMs: 1500 } })
  })
  if (res.status !== 200) throw new Error(`start answered ${res.status}: ${await res.text()}`)
  return await res.json() as { workflowId: string, runId: string }
}

async function completed (stack: Stack, workflowId: string): Promise<boolean> {
  const res = await fetch(`${stack.base}/workflow/${workflowId}/result`, { signal: AbortSignal.timeout(5000) })
  if (res.status !== 200) return false
  const body = await res.json() as { status: string, output: { ticks: number } }
  return body.status === 'completed' && body.output.ticks === 5
}

async function killed (pid: number | undefined): Promise<void> {
  if (pid === undefined) throw new Error('no such process')
  process.kill(pid, 'SIGKILL')
  await until(() => { try { process.kill(pid, 0); return false } catch { return true } })
}

t.test('killed workers and engines are restarted and every run completes, with the same API process', async (t) => {
  const stack = await startStack('flowport')
  t.teardown(() => { killStack(stack) })
  const api = stack.process.pid
  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), 'ready')

  const connection = await Connection.connect({ address: `127.0.0.1:${stack.enginePort}` })
  t.teardown(() => connection.close())
  const client = new Client({ connection })
  const ticks = async (workflowId: string): Promise<number> =>
    (await client.workflow.getHandle(workflowId).fetchHistory()).events?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0
  const midRun = async (): Promise<string> => {
    const { workflowId } = await startRun(stack)
    t.ok(await until(async () => await ticks(workflowId) >= 1), `${workflowId} is between its steps`)
    return workflowId
  }
  const runs: string[] = []

  // The worker, in the middle of a run.
  runs.push(await midRun())
  const firstWorker = stack.find('worker')
  await killed(firstWorker)
  t.ok(await until(() => { const w = stack.find('worker'); return w !== undefined && w !== firstWorker }), 'a new worker is started')
  t.ok(await until(() => completed(stack, runs[0])), 'the run started before completes')

  // The engine, in the middle of a run.
  runs.push(await midRun())
  const firstEngine = stack.find('engine')
  await killed(firstEngine)
  t.ok(await until(() => { const e = stack.find('engine'); return e !== undefined && e !== firstEngine }), 'a new engine is started')
  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), '/ready is 200 again')
  t.ok(await until(() => completed(stack, runs[1])), 'the run started before completes')

  // The engine while the worker starts.
  runs.push(await midRun())
  const worker = stack.find('worker')
  await killed(worker)
  t.ok(await until(() => { const w = stack.find('worker'); return w !== undefined && w !== worker }), 'a new worker starts')
  await killed(stack.find('engine'))

  // The worker while the engine starts.
  t.ok(await until(() => stack.find('engine') !== undefined), 'a new engine starts')
  await killed(stack.find('worker'))

  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), '/ready is 200 again')
  for (const workflowId of runs) t.ok(await until(() => completed(stack, workflowId)), `${workflowId} completed`)
  const last = await startRun(stack)
  t.ok(await until(() => completed(stack, last.workflowId)), 'a new run completes')
  t.equal(stack.process.exitCode, null, 'the API process never exited')
  t.equal(stack.process.pid, api, 'same API process')
  t.match(stack.output(), /\[dev\] worker exited \(SIGKILL\); restarting in \d+ ms/, 'restarts are logged')
  t.match(stack.output(), /\[dev\] engine exited \(SIGKILL\); restarting in \d+ ms/)

  const pids = [stack.process.pid!, ...descendants(stack.process.pid!)]
  stack.process.kill('SIGTERM')
  t.same(await survivors(pids), [], 'SIGTERM still stops everything')
})
