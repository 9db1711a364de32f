/**
 * Client conformance, Go (issue 48): openapi-generator's `go` client (the openapi-generator-cli jar
 * from Maven Central, cached in the Flowport cache directory, run with the machine's Java; Go
 * modules from the Go proxy) is generated from both documents the test stack serves, unedited;
 * `go vet` and `go build` compile test/fixtures/conformance/go/main.go against them (the greeting
 * is a string field of hello's own result), and the program runs against the stack: catalog, run,
 * start/status/result, Prefer: wait, signal, query, update, a schedule, a 400, a 404 and a 401 as
 * their documented models. No SSE stream: openapi-generator's Go client has no text/event-stream
 * support (it reads the whole body, then fails to decode it as JSON). Every WARN or ERROR line the
 * generator logs fails the test unless it is listed below.
 */
import t from 'tap'
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateGo, openapiGeneratorJar, runCommand } from './helpers/client-generators.js'
import { conformanceStack, report, unlistedWarnings, type KnownWarning } from './helpers/conformance.js'

const KNOWN_WARNINGS: KnownWarning[] = [
  {
    pattern: /WARN {2}o\.o\.codegen\.DefaultCodegen - OpenAPI 3\.1 support is still in beta/,
    reason: 'printed for every OpenAPI 3.1 document; the documents are 3.1 (JSON Schema 2020-12 is what the catalog\'s schemas are)'
  },
  {
    pattern: /WARN {2}o\.o\.codegen\.utils\.ModelUtils - Failed to get the schema name: null/,
    reason: 'openapi-generator 7.25 logs it once for any 3.1 schema with `additionalProperties: false` (its parser holds `false` as a schema without a name); ' +
      'the generated structs are right, and the documents keep closing their objects'
  }
]

const isWarning = (line: string) => /\b(WARN|ERROR)\b/.test(line)

const GO_MOD = `module example.com/flowport/conformance

go 1.23

require example.com/flowport/generic v0.0.0

require example.com/flowport/typed v0.0.0

replace example.com/flowport/generic => ../generic

replace example.com/flowport/typed => ../typed
`

t.test('a client openapi-generator (Go) generates from each document builds and passes the conformance program', async (t) => {
  const jar = openapiGeneratorJar((message) => t.comment(message))
  const stack = await conformanceStack(t, 'go')
  for (const [document, name] of [[stack.documents.typed, 'typed'], [stack.documents.generic, 'generic']] as const) {
    const generated = await generateGo(jar, document, join(stack.work, name), name)
    t.equal(generated.code, 0, `${name}: the generator succeeds`, { output: generated.output.slice(-4000) })
    const { unlisted, unused } = unlistedWarnings(generated.output, isWarning, KNOWN_WARNINGS)
    t.same(unlisted, [], `${name}: no unlisted generator warning`)
    t.same(unused, [], `${name}: every listed warning still occurs`)
  }
  const program = join(stack.work, 'conformance')
  mkdirSync(program)
  copyFileSync('test/fixtures/conformance/go/main.go', join(program, 'main.go'))
  writeFileSync(join(program, 'go.mod'), GO_MOD)

  // The generated go.mod requires gopkg.in/validator.v2: fetched through the Go proxy into the module cache.
  const tidy = await runCommand('go', ['mod', 'tidy'], { cwd: program, timeoutMs: 300_000 })
  t.equal(tidy.code, 0, 'go mod tidy', { output: tidy.output })
  const vet = await runCommand('go', ['vet', '.'], { cwd: program, timeoutMs: 300_000 })
  t.equal(vet.code, 0, 'go vet: both clients and the program compile, unedited', { output: vet.output })
  const built = await runCommand('go', ['build', '-o', 'conformance', '.'], { cwd: program, timeoutMs: 300_000 })
  t.equal(built.code, 0, 'go build', { output: built.output })

  const ran = await runCommand(join(program, 'conformance'), [], { env: { ...process.env, FLOWPORT_URL: stack.base, FLOWPORT_KEY: stack.key }, timeoutMs: 180_000 })
  t.equal(ran.code, 0, 'the program runs to its end', { output: ran.output.slice(-4000) })
  const { steps } = report(ran.stdout)
  const ok = (name: string) => {
    t.notOk(steps[name]?.error, `${name}: no error`, { error: steps[name]?.error })
    return steps[name]?.ok
  }
  const catalog = ok('catalog')
  t.ok(catalog?.includes('hello') && catalog?.includes('approval'), 'the catalog lists the examples (and the generic client as many)')
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
