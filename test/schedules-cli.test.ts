/**
 * `flowport schedule …` end to end: the launcher in a child process against the real API and
 * engine. Output shapes (--json and text) and exit codes as for the other client commands.
 */
import t from 'tap'
import { catalogArgs, flowport, listening } from './helpers/flowport-cli.js'
import { eventually, newId } from './helpers/workflows.js'

t.test('create, list, show, pause, unpause, trigger, backfill, delete', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const id = newId('cli-sched')
  t.teardown(async () => { await app.engine.client.schedule.getHandle(id).delete().catch(() => undefined) })

  const created = await flowport(['schedule', 'create', 'hello', '{"name":"Ada"}', '--id', id, '--every', '1h', '--paused', '--note', 'cli', ...catalogArgs()], { env })
  t.equal(created.code, 0, created.stderr)
  t.equal(created.stdout.trim(), id, 'prints the schedule id')

  // The engine's schedule list is eventually consistent: a new schedule shows up after a moment.
  const listed = await eventually(async () => await flowport(['schedule', 'list', '--workflow', 'hello', '--limit', '1000', '--json'], { env }),
    (res) => res.code === 0 && JSON.parse(res.stdout).some((s: any) => s.scheduleId === id), 40)
  t.equal(listed.code, 0)
  t.ok(JSON.parse(listed.stdout).some((s: any) => s.scheduleId === id && s.state.paused), 'listed, paused')

  const shown = await flowport(['schedule', 'show', id, '--json'], { env })
  t.equal(shown.code, 0)
  const body = JSON.parse(shown.stdout)
  t.match(body, { scheduleId: id, workflowName: 'hello', spec: { every: [{ interval: '1h' }] }, state: { paused: true, note: 'cli' }, etag: /^"/ })
  const text = await flowport(['schedule', 'show', id], { env })
  t.match(text.stdout, /paused \(cli\)/, 'readable text without --json')

  t.equal((await flowport(['schedule', 'trigger', id], { env })).code, 0)
  const triggered = await eventually(async () => (await app.engine.client.schedule.getHandle(id).describe()).info.numActionsTaken, (n) => n === 1)
  t.equal(triggered, 1, 'trigger started a run')

  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
  const backfill = await flowport(['schedule', 'backfill', id, '--from', new Date(end - 3_600_000 + 1).toISOString(), '--to', new Date(end).toISOString(), '--overlap', 'allowAll'], { env })
  t.equal(backfill.code, 0, backfill.stderr)
  const afterBackfill = await eventually(async () => (await app.engine.client.schedule.getHandle(id).describe()).info.numActionsTaken, (n) => n === 2)
  t.equal(afterBackfill, 2, 'the backfill started the one run due in that hour')

  t.equal((await flowport(['schedule', 'unpause', id, '--note', 'go'], { env })).code, 0)
  t.equal((await app.engine.client.schedule.getHandle(id).describe()).state.paused, false, 'unpaused')
  t.equal((await flowport(['schedule', 'pause', id], { env })).code, 0)
  t.equal((await app.engine.client.schedule.getHandle(id).describe()).state.paused, true, 'paused again')

  const badOverlap = await flowport(['schedule', 'trigger', id, '--overlap', 'sometimes'], { env })
  t.equal(badOverlap.code, 2, 'an unknown overlap policy is a usage error')
  const badCron = await flowport(['schedule', 'create', 'hello', '{"name":"Ada"}', '--cron', '99 * * * *', ...catalogArgs()], { env })
  t.equal(badCron.code, 2, 'a cron the API refuses: exit 2')
  t.match(badCron.stderr, /ValidationError/)

  t.equal((await flowport(['schedule', 'delete', id, '--json'], { env })).code, 0)
  const missing = await flowport(['schedule', 'show', id], { env })
  t.equal(missing.code, 2, 'an unknown schedule: exit 2')
  t.match(missing.stderr, /ScheduleNotFoundError/)
})
