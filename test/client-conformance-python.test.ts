/**
 * Client conformance, Python (issue 48): openapi-python-client (pinned, from PyPI, in a venv under
 * the Flowport cache directory) generates clients from both documents the test stack serves,
 * unedited; mypy --strict checks test/fixtures/conformance/python/conformance.py against them (the
 * typed greeting is a `str`, no cast), and the script runs against the stack: catalog, run,
 * start/status/result, Prefer: wait, signal, query, update, a schedule, a 400, a 404 and a 401 as
 * their documented models. No SSE stream: openapi-python-client does not support
 * text/event-stream (it generates the stream operations as plain requests that wait for the whole
 * body). Every line the generator prints beyond its progress fails the test unless listed below.
 */
import t from 'tap'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generatePython, pythonGenerator, runCommand } from './helpers/client-generators.js'
import { conformanceStack, report, unlistedWarnings, type KnownWarning } from './helpers/conformance.js'

/** None: the generator prints only its progress for either document. */
const KNOWN_WARNINGS: KnownWarning[] = []

/** The generator's progress line; anything else it prints is a warning or an error. */
const isWarning = (line: string) => !/^Generating \S+$/.test(line)

/**
 * mypy: strict on the script; the generated packages' own findings are the generator's (0.29.1
 * annotates `__exit__(*args: object)`, which strict mode refuses) and not checked, while their
 * types are what the script is checked against.
 */
const MYPY_CONFIG = `[mypy]
strict = True

[mypy-flowport_typed.*,flowport_generic.*]
ignore_errors = True
`

t.test('a client openapi-python-client generates from each document type-checks and passes the conformance script', async (t) => {
  const venv = pythonGenerator((message) => t.comment(message))
  const stack = await conformanceStack(t, 'python')
  for (const [document, out] of [[stack.documents.typed, 'flowport_typed'], [stack.documents.generic, 'flowport_generic']] as const) {
    const generated = await generatePython(venv, document, join(stack.work, out))
    t.equal(generated.code, 0, `${out}: the generator succeeds`, { output: generated.output })
    const { unlisted, unused } = unlistedWarnings(generated.output, isWarning, KNOWN_WARNINGS)
    t.same(unlisted, [], `${out}: no unlisted generator warning`)
    t.same(unused, [], `${out}: every listed warning still occurs`)
  }
  copyFileSync('test/fixtures/conformance/python/conformance.py', join(stack.work, 'conformance.py'))
  writeFileSync(join(stack.work, 'mypy.ini'), MYPY_CONFIG)

  const checked = await runCommand(venv.python, ['-m', 'mypy', '--config-file', 'mypy.ini', 'conformance.py'], { cwd: stack.work })
  t.equal(checked.code, 0, 'mypy --strict: the script type-checks against both clients', { output: checked.output })

  const ran = await runCommand(venv.python, ['conformance.py'], {
    cwd: stack.work, env: { ...process.env, FLOWPORT_URL: stack.base, FLOWPORT_KEY: stack.key }, timeoutMs: 180_000
  })
  t.equal(ran.code, 0, 'the script runs to its end', { output: ran.output.slice(-4000) })
  const { steps } = report(ran.stdout)
  const ok = (name: string) => {
    t.notOk(steps[name]?.error, `${name}: no error`, { error: steps[name]?.error, trace: steps[name]?.trace })
    return steps[name]?.ok
  }
  const catalog = ok('catalog')
  t.ok(catalog?.includes('hello') && catalog?.includes('approval'), 'the catalog lists the examples (and the generic client the same)')
  t.equal(ok('run'), 'Hello, Ada!', 'a run\'s typed output')
  const started = ok('start-status-result')
  t.match(started?.status, /^(running|completed)$/, 'a started run\'s status')
  t.equal(started?.greeting, 'Hello, Bo!', 'its result, typed')
  t.equal(ok('prefer-wait'), 'Hello, Cy!', 'Prefer: wait answers the typed result')
  t.same(ok('signal-query-update'), { previous: 'draft', label: 'final', approvedBy: 'Ada' }, 'an update, a query and a signal, typed')
  const schedule = ok('schedule')
  t.same(schedule, { scheduleId: schedule?.scheduleId, workflowName: 'hello', paused: true }, 'a schedule created and read')
  t.same(ok('errors'), {
    400: { status: 400, error: 'ValidationError', issues: 1 },
    404: { status: 404, error: 'WorkflowNotFoundError' },
    401: { status: 401, error: 'UnauthorizedError' }
  }, 'a 400, a 404 and a 401, each as its documented model')
})
