/**
 * Client conformance, TypeScript (issue 48): @hey-api/openapi-ts (pinned devDependency) generates
 * clients from both documents the test stack serves, unedited; tsc compiles them and
 * test/fixtures/conformance/ts/conformance.ts in strict mode (the typed greeting, no cast), and the
 * script runs against the stack: catalog, run, start/status/result, Prefer: wait, signal, query,
 * update, a schedule, a 400, a 404 and a 401 as their documented models, and one SSE stream.
 * Every line the generator prints as a warning fails the test unless it is listed below.
 */
import t from 'tap'
import { copyFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { generateTypeScript, runCommand } from './helpers/client-generators.js'
import { conformanceStack, report, unlistedWarnings, type KnownWarning } from './helpers/conformance.js'

/** None: the generator prints no warning for either document. */
const KNOWN_WARNINGS: KnownWarning[] = []

const isWarning = (line: string) => /warn|error|fail|deprecat/i.test(line)

t.test('a client @hey-api/openapi-ts generates from each document compiles and passes the conformance script', async (t) => {
  const stack = await conformanceStack(t, 'ts')
  // The generator writes NodeNext-style `.js` imports when it finds this tsconfig where it runs.
  writeFileSync(join(stack.work, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      typeRoots: [resolve('node_modules/@types')]
    },
    include: ['*.ts', 'client', 'generic']
  }))
  writeFileSync(join(stack.work, 'package.json'), '{"type":"module"}')
  for (const [document, out] of [[stack.documents.typed, 'client'], [stack.documents.generic, 'generic']] as const) {
    const generated = await generateTypeScript(document, out, stack.work)
    t.equal(generated.code, 0, `${out}: the generator succeeds`, { output: generated.output })
    const { unlisted, unused } = unlistedWarnings(generated.output, isWarning, KNOWN_WARNINGS)
    t.same(unlisted, [], `${out}: no unlisted generator warning`)
    t.same(unused, [], `${out}: every listed warning still occurs`)
  }
  copyFileSync('test/fixtures/conformance/ts/conformance.ts', join(stack.work, 'conformance.ts'))

  const compiled = await runCommand(resolve('node_modules/.bin/tsc'), ['-p', stack.work])
  t.equal(compiled.code, 0, 'tsc --noEmit: both clients and the script compile, strict, unedited', { output: compiled.output })

  const ran = await runCommand(resolve('node_modules/.bin/tsx'), ['conformance.ts'], {
    cwd: stack.work, env: { ...process.env, FLOWPORT_URL: stack.base, FLOWPORT_KEY: stack.key }, timeoutMs: 180_000
  })
  t.equal(ran.code, 0, 'the script runs to its end', { output: ran.output.slice(-4000) })
  const got = report(ran.stdout)
  t.ok(got.catalog.includes('hello') && got.catalog.includes('approval'), 'the catalog lists the examples')
  t.same(got.genericCatalog, got.catalog, 'the generic client lists the same catalog')
  t.equal(got.greeting, 'Hello, Ada!', 'a run\'s typed output')
  t.match(got.status, /^(running|completed)$/, 'a started run\'s status')
  t.equal(got.resultGreeting, 'Hello, Bo!', 'its result, typed')
  t.equal(got.waitedGreeting, 'Hello, Cy!', 'Prefer: wait answers the typed result')
  t.equal(got.previous, 'draft', 'the update answers its typed result')
  t.equal(got.label, 'final', 'the query answers its typed result')
  t.equal(got.approvedBy, 'Ada', 'the signal reached the run, whose output is typed')
  t.same(got.schedule, { scheduleId: got.schedule.scheduleId, workflowName: 'hello', paused: true }, 'a schedule created and read')
  t.same(got.errors, {
    400: { status: 400, error: 'ValidationError', issues: 1 },
    404: { status: 404, error: 'WorkflowNotFoundError' },
    401: { status: 401, error: 'UnauthorizedError' }
  }, 'a 400, a 404 and a 401, each as its documented model')
  t.equal(got.events[0], 'workflow', 'the history stream opens with the run')
  t.equal(got.events.at(-1), 'done', 'and ends with done')
  t.ok(got.events.includes('history'), 'with the history between')
})
