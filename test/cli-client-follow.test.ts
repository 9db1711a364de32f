/**
 * Live progress of `flowport run` and `flowport tail`: through an API restart (no event lost or
 * repeated), Ctrl-C detaching or stopping, and on a terminal (a pseudo-terminal from util-linux
 * `script`), with and without NO_COLOR.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { catalogArgs, cli, flowport, launcher, listening } from './helpers/flowport-cli.js'
import { newId, waitClosed } from './helpers/workflows.js'
import { build } from './helpers/app.js'
import { until } from './helpers/processes.js'
import { testCatalog } from './helpers/env.js'

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0

t.test('tail follows a run to its end through an API restart, every step once', async (t) => {
  const first = await listening(t)
  const env = { FLOWPORT_URL: first.url }
  const id = newId('cli-tail')
  const steps = 4
  // The run waits (startDelay) until both tails stream, so a loaded machine cannot finish it before
  // they connect; a signal-with-start ends a start delay at once (the engine's rule; sleepy ignores the signal).
  const input = { steps, delayMs: 1500 }
  const started = await first.app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'sleepy', workflowId: id, input, startDelay: '1h' } })
  t.equal(started.statusCode, 200, started.body)
  const plain = cli(['tail', id], { env })
  const json = cli(['tail', id, '--json'], { env })
  t.teardown(() => { plain.child.kill('SIGKILL'); json.child.kill('SIGKILL') })
  // Both are connected (a first connection that fails is an error, not a restart to ride out).
  t.ok(await until(() => first.app.openStreams.size === 2, 600, 100), 'both tails are streaming')
  await first.app.engine.client.workflow.signalWithStart('sleepy', { workflowId: id, taskQueue: testCatalog(), args: [input], signal: 'start-now' })
  t.ok(await plain.waitFor(/step tick completed/), 'the first step arrived')

  await first.app.close()
  const second = await build(t)
  await second.listen({ port: first.port, host: '127.0.0.1' })

  t.equal(await plain.exited, 0, 'tail exits 0 when the run completes')
  t.same(JSON.parse(plain.stdout()), { ticks: steps }, 'then prints the output')
  const err = plain.stderr()
  t.equal(count(err, /step tick scheduled/), steps, 'each step scheduled once')
  t.equal(count(err, /step tick completed/), steps, 'each step completed once')
  t.equal(count(err, /following workflow/), 1, 'the run is announced once')

  t.equal(await json.exited, 0, `--json tail exits 0 ${json.stderr()}`)
  const doc = JSON.parse(json.stdout()) as { workflowId: string, runs: Array<{ runId: string, events: Array<{ eventId: string }>, done: { reason: string } }> }
  t.equal(doc.workflowId, id)
  t.equal(doc.runs.length, 1)
  const ids = doc.runs[0].events.map((e) => Number(e.eventId))
  t.same(ids, ids.map((_, i) => i + 1), 'events 1..n, none lost or repeated')
  t.equal(doc.runs[0].done.reason, 'WORKFLOW_EXECUTION_COMPLETED')
  const history = await second.engine.client.workflow.getHandle(id).fetchHistory()
  t.equal(ids.length, history.events?.length, 'the whole history')
})

t.test('run follows the runs a workflow continues as; tail follows the latest run, or the one --run pins', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-relay')
  const run = await flowport(['run', 'relay', '{"hops":2}', '--id', id, ...catalogArgs()], { env })
  t.equal(run.code, 0)
  t.same(JSON.parse(run.stdout), { hops: 0 }, 'the output of the last run')
  t.equal(count(run.stderr, /workflow continued_as_new \(new run [^)]+\)/), 2, 'two continuations followed')
  t.equal(count(run.stderr, /following workflow/), 3, 'three runs announced')

  type TailDoc = { runs: Array<{ runId: string, done: { reason: string, newRunId?: string } }> }
  const latest = await flowport(['tail', id, '--json'], { env })
  t.equal(latest.code, 0)
  const last = JSON.parse(latest.stdout) as TailDoc
  t.same(last.runs.map((r) => r.done.reason), ['WORKFLOW_EXECUTION_COMPLETED'], 'unpinned: the latest run')
  const runs = JSON.parse((await flowport(['runs', '--workflow', 'relay', '--limit', '50', '--json', ...catalogArgs()], { env })).stdout) as Array<{ workflowId: string, runId: string, status: string }>
  const first = runs.filter((r) => r.workflowId === id && r.status === 'continued_as_new').at(-1)
  t.ok(first, 'the first run is listed')
  const pinned = await flowport(['tail', id, '--run', first!.runId, '--json'], { env })
  t.equal(pinned.code, 0)
  t.match((JSON.parse(pinned.stdout) as TailDoc).runs, [{ runId: first!.runId, done: { reason: 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW', newRunId: String } }], '--run: that run only')
})

t.test('Ctrl-C during run detaches: the run goes on, exit 130 with the command to follow it', async (t) => {
  const { app, url } = await listening(t)
  const id = newId('cli-detach')
  const run = cli(['run', 'sleepy', '{"steps":3,"delayMs":1500}', '--id', id, ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.teardown(() => { run.child.kill('SIGKILL') })
  t.ok(await run.waitFor(/step tick scheduled/), 'progress started')
  run.child.kill('SIGINT')
  t.equal(await run.exited, 130)
  t.match(run.stderr(), `Detached: workflow ${id} keeps running. Follow it with: flowport tail ${id}\n`)
  t.equal(await waitClosed(app, id), 'COMPLETED', 'the run completed anyway')

  const tail = cli(['tail', newId('cli-none')], { env: { FLOWPORT_URL: url } })
  t.equal(await tail.exited, 2, 'tail of an unknown id')
})

t.test('Ctrl-C during tail detaches', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-tail-detach')
  await flowport(['start', 'sleepy', '{"steps":3,"delayMs":5000}', '--id', id, ...catalogArgs()], { env })
  const tail = cli(['tail', id], { env })
  t.teardown(() => { tail.child.kill('SIGKILL') })
  t.ok(await tail.waitFor(/step tick scheduled/))
  tail.child.kill('SIGINT')
  t.equal(await tail.exited, 130)
  t.match(tail.stderr(), `Detached: workflow ${id} keeps running. Follow it with: flowport tail ${id}\n`)
  t.equal(await waitClosed(app, id), 'COMPLETED')
})

t.test('run --stop-on-interrupt stops the run on Ctrl-C', async (t) => {
  const { app, url } = await listening(t)
  const id = newId('cli-stop-int')
  const run = cli(['run', 'sleepy', '{"steps":3,"delayMs":3000}', '--id', id, '--stop-on-interrupt', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.teardown(() => { run.child.kill('SIGKILL') })
  t.ok(await run.waitFor(/step tick scheduled/))
  run.child.kill('SIGINT')
  t.equal(await run.exited, 130)
  t.match(run.stderr(), `Stop requested: workflow ${id} (outcome cancel_requested).`)
  t.equal(await waitClosed(app, id), 'CANCELLED', 'the run was stopped')
})

/** Runs the launcher under a pseudo-terminal (util-linux `script`); its output as the terminal shows it. */
async function onTerminal (args: string[], env: Record<string, string | undefined>): Promise<{ code: number, output: string }> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`
  const command = [process.execPath, launcher, ...args].map(quote).join(' ')
  return await new Promise((done) => {
    execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env } }, (err, stdout) => {
      done({ code: err ? Number((err as { code?: number }).code) : 0, output: stdout.replaceAll('\r\n', '\n') })
    })
  })
}

t.test('on a terminal: symbols, colour, elapsed time, retries and the pretty-printed output; NO_COLOR', async (t) => {
  const { url } = await listening(t)
  const colored = await onTerminal(['run', 'flaky', '{"failures":2}', ...catalogArgs()], { FLOWPORT_URL: url, NO_COLOR: undefined })
  t.equal(colored.code, 0)
  t.ok(colored.output.includes('\u001b[32m✓\u001b[0m step unstable completed on attempt 3'), 'a green check for the step')
  t.match(colored.output, /↻.* step unstable attempt 3 \(attempt 2 failed: Attempt 2 of 3 fails on purpose\)/, 'the retry with its attempt and error')
  t.match(colored.output, /\d+\.\ds .*▸.* step unstable scheduled/, 'elapsed time')
  t.match(colored.output, /\{\n {2}"attempts": 3\n\}\n/, 'the output pretty-printed')

  const plain = await onTerminal(['run', 'hello', '{"name":"Ada"}', ...catalogArgs()], { FLOWPORT_URL: url, NO_COLOR: '1' })
  t.equal(plain.code, 0)
  t.notOk(plain.output.includes('\u001b['), 'NO_COLOR: no escape sequence')
  t.match(plain.output, /✓ step greet completed/, 'still the terminal layout')
})

t.test('local steps show when they end (the engine records nothing before)', async (t) => {
  const { url } = await listening(t)
  const run = await flowport(['run', 'pipeline', '{"stages":2}', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.equal(run.code, 0)
  t.equal(count(run.stderr, /a local step completed/), 2, 'one line per local step')
  t.match(run.stdout, /"value": 2/)
})
