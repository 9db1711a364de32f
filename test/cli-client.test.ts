/**
 * The client commands of `flowport` end to end: the launcher in a child process, the real API on
 * a port, the real engine and example worker. Output shapes, input forms and exit codes
 * (docs/cli.md: 0 completed, 1 workflow not completed, 2 usage/input, 3 API/network,
 * 4 still running).
 */
import t from 'tap'
import type { Test } from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { catalogArgs, cli, flowport, listening } from './helpers/flowport-cli.js'
import { until } from './helpers/processes.js'
import { newId, waitClosed } from './helpers/workflows.js'
import { testCatalog } from './helpers/env.js'

const oneLine = (t: Test, stderr: string, pattern: RegExp, what: string) => {
  const lines = stderr.trim().split('\n')
  t.equal(lines.length, 1, `${what}: one line on stderr`)
  t.match(lines[0], pattern, `${what}: names the error`)
  t.notMatch(stderr, /\n\s+at /, `${what}: no stack trace`)
}

t.test('run: the output on stdout, exit 0; --json prints the WorkflowResult', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const plain = await flowport(['run', 'hello', '{"name":"Ada"}', ...catalogArgs()], { env })
  t.equal(plain.code, 0, 'exit 0')
  t.same(JSON.parse(plain.stdout), { greeting: 'Hello, Ada!' })
  t.match(plain.stderr, /step greet scheduled[\s\S]*step greet completed[\s\S]*workflow completed/, 'plain progress lines on stderr')
  t.notOk(plain.stderr.includes('\u001b['), 'no colour without a terminal')

  const id = newId('cli-json')
  const json = await flowport(['run', 'hi', '{"name":"Bo"}', '--id', id, '--json', ...catalogArgs()], { env })
  t.equal(json.code, 0)
  t.match(JSON.parse(json.stdout), { workflowId: id, runId: String, status: 'completed', output: { greeting: 'Hello, Bo!' }, input: { name: 'Bo' }, error: null })
  t.equal(json.stderr, '', 'nothing on stderr')
})

t.test('input from stdin (-) and from @file', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const stdin = await flowport(['run', 'hello', '-', ...catalogArgs()], { env, stdin: '{"name":"Stdin"}' })
  t.equal(stdin.code, 0)
  t.same(JSON.parse(stdin.stdout), { greeting: 'Hello, Stdin!' })
  const dir = mkdtempSync(join(tmpdir(), 'flowport-cli-'))
  writeFileSync(join(dir, 'input.json'), '{"name":"File"}')
  const file = await flowport(['run', 'hello', '@input.json', '--json', ...catalogArgs()], { env, cwd: dir })
  t.equal(file.code, 0)
  t.match(JSON.parse(file.stdout), { output: { greeting: 'Hello, File!' } })
})

t.test('exit 1: a failed run prints its error on one line', async (t) => {
  const { url } = await listening(t)
  const run = await flowport(['run', 'explode', '{"message":"boom"}', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.equal(run.code, 1)
  t.equal(run.stdout, '')
  t.match(run.stderr, /step detonate failed on attempt 1: boom/, 'the failing step and its error')
  t.match(run.stderr.trim().split('\n').at(-1), /^Workflow failed: .*boom.* \(workflow [^ ]+, run [^ ]+\)$/)
  const json = await flowport(['run', 'explode', '{"message":"boom"}', '--json', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.equal(json.code, 1)
  t.match(JSON.parse(json.stdout), { status: 'failed', output: null, errorDetails: { name: 'ExplosionError', message: 'boom' } })
})

t.test('exit 2: bad input, unknown option, input refused by the API, unknown workflow', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const badJson = await flowport(['run', 'hello', '{name:'], { env })
  t.equal(badJson.code, 2, 'invalid JSON')
  oneLine(t, badJson.stderr, /^InputError: input from the argument is not valid JSON: /, 'invalid JSON')
  const missing = await flowport(['run', 'hello', '@/nonexistent/input.json'], { env })
  t.equal(missing.code, 2, 'missing file')
  oneLine(t, missing.stderr, /^InputError: cannot read input file \/nonexistent\/input.json: ENOENT$/, 'missing file')
  const option = await flowport(['status', 'x', '--bogus'], { env })
  t.equal(option.code, 2, 'unknown option')
  oneLine(t, option.stderr, /unknown option '--bogus'/, 'unknown option')
  const schema = await flowport(['run', 'hello', '{"name":42}', ...catalogArgs()], { env })
  t.equal(schema.code, 2, 'input failing the schema')
  oneLine(t, schema.stderr, /^ValidationError: .*\/name must be string$/, 'input failing the schema')
  const unknown = await flowport(['run', 'no-such-workflow', '{}', ...catalogArgs()], { env })
  t.equal(unknown.code, 2, 'unknown workflow')
  oneLine(t, unknown.stderr, /^WorkflowNotFoundError: .*no-such-workflow/, 'unknown workflow')
  const verbose = await flowport(['run', 'no-such-workflow', '{}', '--verbose', ...catalogArgs()], { env })
  t.equal(verbose.code, 2)
  t.match(verbose.stderr, /^WorkflowNotFoundError: .*\nHTTP 404\n\{/, '--verbose adds the status and the body')
  const status = await flowport(['status', newId('never-started')], { env })
  t.equal(status.code, 2, 'unknown workflow id')
  oneLine(t, status.stderr, /^WorkflowNotFoundError: /, 'unknown workflow id')
})

t.test('exit 3: no API answering, or the API refusing the token', async (t) => {
  const { port } = await listening(t)
  const down = await flowport(['status', 'x', '--url', 'http://127.0.0.1:1'])
  t.equal(down.code, 3, 'connection refused')
  oneLine(t, down.stderr, /^NetworkError: /, 'connection refused')
  const guarded = await listening(t, { SERVICE_API_AUTH_TOKEN: 'cli-test-token-0123456789' })
  const refused = await flowport(['catalog', '--url', guarded.url, '--token', 'wrong', ...catalogArgs()])
  t.equal(refused.code, 3, 'wrong token')
  oneLine(t, refused.stderr, /^UnauthorizedError: /, 'wrong token')
  const allowed = await flowport(['catalog', '--url', guarded.url, '--token', 'cli-test-token-0123456789', ...catalogArgs()])
  t.equal(allowed.code, 0, '--token is sent')
  const fromEnv = await flowport(['catalog', ...catalogArgs()], { env: { FLOWPORT_URL: guarded.url, FLOWPORT_TOKEN: 'cli-test-token-0123456789' } })
  t.equal(fromEnv.code, 0, 'FLOWPORT_TOKEN is the default')
  t.ok(port > 0)
})

t.test('exit 4: the wait timed out; the run goes on and the command says how to follow it', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  // `approval` waits for its signal, so no machine is slow enough for it to close before the CLI looks.
  for (const mode of [['--json'], []]) {
    const id = newId('cli-timeout')
    const run = await flowport(['run', 'approval', '{"label":"x"}', '--id', id, '--timeout', '300', ...mode, ...catalogArgs()], { env })
    t.equal(run.code, 4, `exit 4 ${mode.join(' ') || '(following)'}`)
    t.match(run.stderr, new RegExp(`workflow ${id} keeps running\\. Follow it with: flowport tail ${id}\\n$`))
    await app.engine.client.workflow.getHandle(id).signal('approve', { by: 'test' })
    t.equal(await waitClosed(app, id), 'COMPLETED', 'the run went on to complete')
  }
  const open = newId('cli-open')
  await flowport(['start', 'approval', '{"label":"x"}', '--id', open, ...catalogArgs()], { env })
  const early = await flowport(['result', open], { env })
  t.equal(early.code, 4, 'result of an open run')
  t.match(early.stderr, /^WorkflowNotCompletedError: .*Follow it with: flowport tail /)
  await flowport(['terminate', open], { env })
})

t.test('runs --watch prints every start and close as it happens, until Ctrl-C (exit 130)', async (t) => {
  const { app, url } = await listening(t, { SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500' })
  const watch = cli(['runs', '--watch', '--json', '--workflow', 'hello', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  // The feed is open once the API counts it; then a run starts and closes.
  t.ok(await until(() => app.runsFeed.size === 1, 1200, 50), 'the feed is open')
  const id = newId('cli-watch')
  await flowport(['start', 'hello', '{"name":"watch"}', '--id', id, ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  const lines = () => watch.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { change: string, run: { workflowId: string, status: string } })
  t.ok(await until(() => lines().some((l) => l.run.workflowId === id && l.change === 'closed'), 1200, 50), 'the close arrived')
  watch.child.kill('SIGINT')
  t.equal(await watch.exited, 130, 'Ctrl-C ends it with 130')
  const mine = lines().filter((l) => l.run.workflowId === id)
  t.same(mine.map((l) => l.change), ['started', 'closed'])
  t.equal(mine[1]!.run.status, 'completed')
})

t.test('start, status, input, result, trace, runs', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-start')
  const started = await flowport(['start', 'hello', '{"name":"Cy"}', '--id', id, '--json', ...catalogArgs()], { env })
  t.equal(started.code, 0)
  const { runId } = JSON.parse(started.stdout) as { runId: string }
  t.same(JSON.parse(started.stdout), { kind: 'started', workflowId: id, runId })
  const plainStart = await flowport(['start', 'hello', '{"name":"Di"}', ...catalogArgs()], { env })
  t.match(plainStart.stdout, /^[0-9a-f-]{36}\n$/, 'start prints the workflow id alone on stdout')
  t.match(plainStart.stderr, /Follow it with: flowport tail /)
  t.equal(await waitClosed(app, id), 'COMPLETED')

  const status = await flowport(['status', id, '--json'], { env })
  t.match(JSON.parse(status.stdout), { workflowId: id, runId, workflowName: 'hello', catalog: testCatalog(), status: 'completed' })
  const table = await flowport(['status', id, '--run', runId], { env })
  t.match(table.stdout, /status\s+completed/, 'a table without --json')
  t.same(JSON.parse((await flowport(['input', id], { env })).stdout), { name: 'Cy' })
  t.same(JSON.parse((await flowport(['input', id, '--run', runId, '--json'], { env })).stdout), { workflowId: id, runId, input: { name: 'Cy' } })
  const result = await flowport(['result', id, '--run', runId], { env })
  t.equal(result.code, 0)
  t.same(JSON.parse(result.stdout), { greeting: 'Hello, Cy!' })
  t.match(JSON.parse((await flowport(['result', id, '--json'], { env })).stdout), { status: 'completed', output: { greeting: 'Hello, Cy!' } })

  const trace = await flowport(['trace', id], { env })
  t.equal(trace.code, 0, 'trace')
  t.match(trace.stdout, /greet/, 'the trace names the step')

  const runs = await flowport(['runs', '--workflow', 'hello', '--status', 'completed', '--limit', '1', '--json', ...catalogArgs()], { env })
  t.equal(runs.code, 0)
  const listed = JSON.parse(runs.stdout) as Array<{ workflowName: string, status: string }>
  t.equal(listed.length, 1, '--limit')
  t.match(listed[0], { workflowName: 'hello', status: 'completed' })
  const runsTable = await flowport(['runs', '--workflow', 'hello', '--limit', '3', ...catalogArgs()], { env })
  t.match(runsTable.stdout, /^workflow id\s+workflow\s+status\s+version\s+started\s+closed\n/, 'aligned columns')
  t.equal(runsTable.stdout.trim().split('\n').length, 4, 'a header and 3 rows')
})

t.test('signal, query, update, stop, terminate', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-approval')
  await flowport(['start', 'approval', '{"label":"a"}', '--id', id, ...catalogArgs()], { env })
  const updated = await flowport(['update', id, 'relabel', '{"label":"b"}'], { env })
  t.equal(updated.code, 0)
  t.same(JSON.parse(updated.stdout), { previous: 'a' })
  const refused = await flowport(['update', id, 'relabel', '{"label":""}'], { env })
  t.equal(refused.code, 2, 'an update its validator rejects')
  t.match(refused.stderr, /^UpdateRejectedError: /)
  const query = await flowport(['query', id, 'state', '--json'], { env })
  t.match(JSON.parse(query.stdout), { workflowId: id, result: { label: 'b', approved: false } })
  const signal = await flowport(['signal', id, 'approve', '-'], { env, stdin: '{"by":"Ada"}' })
  t.equal(signal.code, 0)
  t.match(signal.stderr, `Signal approve delivered to workflow ${id}`)
  t.equal(await waitClosed(app, id), 'COMPLETED')
  t.same(JSON.parse((await flowport(['result', id], { env })).stdout), { label: 'b', approvedBy: 'Ada' })

  const held = newId('cli-stop')
  await flowport(['start', 'approval', '{"label":"h"}', '--id', held, ...catalogArgs()], { env })
  const stop = await flowport(['stop', held, '--escalate-after', '20000', '--reason', 'order withdrawn', '--json'], { env })
  t.equal(stop.code, 0)
  t.match(JSON.parse(stop.stdout), { workflowId: held, outcome: 'canceled', status: 'canceled' })
  const { events } = await app.engine.client.workflow.getHandle(held).fetchHistory()
  const cancelRequested = events?.find((e) => e.workflowExecutionCancelRequestedEventAttributes)
  t.equal(cancelRequested?.workflowExecutionCancelRequestedEventAttributes?.cause, 'order withdrawn', 'the reason is in the run\'s history')
  const canceled = await flowport(['result', held], { env })
  t.equal(canceled.code, 1, 'result of a canceled run: exit 1')
  t.match(canceled.stderr, /^Workflow canceled: /)
  const again = await flowport(['stop', held], { env })
  t.equal(again.code, 2, 'stopping a closed run')
  t.match(again.stderr, /^WorkflowAlreadyClosedError: /)

  const doomed = newId('cli-terminate')
  await flowport(['start', 'approval', '{"label":"t"}', '--id', doomed, ...catalogArgs()], { env })
  const terminated = await flowport(['terminate', doomed, '--reason', 'from the cli', '--json'], { env })
  t.match(JSON.parse(terminated.stdout), { workflowId: doomed, status: 'terminated', reason: 'from the cli' })
  const result = await flowport(['result', doomed, '--json'], { env })
  t.equal(result.code, 1)
  t.match(JSON.parse(result.stdout), { status: 'terminated', error: /from the cli/ })
})

t.test('catalog: a table, --json, one workflow, an unknown one', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const table = await flowport(['catalog', ...catalogArgs()], { env })
  t.equal(table.code, 0)
  t.match(table.stdout, /^workflow\s+aliases\s+steps\s+description\n/)
  t.match(table.stdout, /\nhello\s+hi\s+greet\s+Greets someone/)
  const json = await flowport(['catalog', '--json', ...catalogArgs()], { env })
  t.match(JSON.parse(json.stdout), { catalog: testCatalog(), workflows: Array, workers: { polling: true } })
  const one = await flowport(['catalog', 'hi', ...catalogArgs()], { env })
  t.match(JSON.parse(one.stdout), { name: 'hello', inputSchema: { properties: { name: { type: 'string' } } } })
  const unknown = await flowport(['catalog', 'nope', ...catalogArgs()], { env })
  t.equal(unknown.code, 2)
  oneLine(t, unknown.stderr, /^WorkflowNotFoundError: catalog .* has no workflow nope$/, 'unknown workflow')
})

t.test('help lists the client commands', async (t) => {
  const help = await flowport(['help'])
  t.equal(help.code, 0)
  for (const command of ['run', 'start', 'tail', 'status', 'result', 'input', 'trace', 'signal', 'query', 'update', 'stop', 'terminate', 'runs', 'catalog', 'eval']) {
    t.match(help.stdout, new RegExp(`\\n {2}${command} `), command)
  }
  const stop = await flowport(['stop', '--help'])
  t.match(stop.stdout, /--reason <text>/)
})

t.test('a query handler that throws: exit 1', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-faulty')
  await flowport(['start', 'faulty', '{}', '--id', id, ...catalogArgs()], { env })
  t.teardown(async () => { await flowport(['terminate', id], { env }) })
  const query = await flowport(['query', id, 'broken'], { env })
  t.equal(query.code, 1)
  t.match(query.stderr, /^QueryFailedError: /)
})
