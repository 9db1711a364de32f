/**
 * A consumer project: a directory outside the repository whose node_modules holds the built
 * @flowport/client (its dist, as an install has it) and its runtime dependencies, compiled under
 * `strict` with the repository's tsc against the package's own types, then run with node against
 * the real API: it runs hello, takes the error branch for an unknown workflow and follows the run.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { build } from '../../test/helpers/app.js'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../../', import.meta.url))
const tsc = join(repo, 'node_modules/typescript/bin/tsc')

const consumer = `import { FlowportClient, isFlowportError, WorkflowNotFoundError, type StreamEvent, type WorkflowResult } from '@flowport/client'

const client = new FlowportClient() // FLOWPORT_URL and FLOWPORT_TOKEN from the environment
const catalog = process.env.CATALOG
const result: WorkflowResult = await client.run('hello', { name: 'Consumer' }, { catalog })
// @ts-expect-error the generated status union has no 'finished' (were the types any, this line would fail the build)
if (result.status === 'finished') throw new Error('unreachable')
const greeting: unknown = result.output

let unknown = ''
try {
  await client.run('no-such-workflow', {}, { catalog })
} catch (error) {
  if (error instanceof WorkflowNotFoundError) unknown = \`\${error.name} \${error.status}\`
  else if (isFlowportError(error)) unknown = \`other \${error.error}\`
  else throw error
}

const events: StreamEvent['event'][] = []
let historyEvents = 0
for await (const event of client.follow(result.workflowId)) {
  events.push(event.event)
  if (event.event === 'history') historyEvents += event.data.length
}
console.log(JSON.stringify({ status: result.status, greeting, unknown, first: events[0], last: events.at(-1), historyEvents }))
`

t.test('a strict TypeScript project compiles against the package and runs hello', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: 'consumer-secret' })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })

  const dir = mkdtempSync(join(tmpdir(), 'flowport-consumer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const installed = join(dir, 'node_modules/@flowport/client')
  mkdirSync(installed, { recursive: true })
  cpSync(join(repo, 'client/package.json'), join(installed, 'package.json'))
  // The packages as an install has them: the client's dist, and core's (the contract it imports), built from their sources.
  const core = join(dir, 'node_modules/@flowport/core')
  await run(process.execPath, [tsc, '-p', join(repo, 'core/tsconfig.build.json'), '--outDir', join(core, 'dist')])
  cpSync(join(repo, 'core/package.json'), join(core, 'package.json'))
  await run(process.execPath, [tsc, '-p', join(repo, 'client/tsconfig.build.json'), '--customConditions', 'flowport-source', '--outDir', join(installed, 'dist')])
  for (const dep of ['openapi-fetch', 'openapi-typescript-helpers', 'eventsource-parser', '@types/node', 'undici-types']) {
    mkdirSync(join(dir, 'node_modules', dep, '..'), { recursive: true })
    symlinkSync(join(repo, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir')
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({
    name: 'consumer', private: true, type: 'module', dependencies: { '@flowport/client': `file:${join(repo, 'client')}` }
  }, null, 2))
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'], outDir: 'dist', noEmitOnError: true },
    include: ['index.ts']
  }, null, 2))
  writeFileSync(join(dir, 'index.ts'), consumer)

  await run(process.execPath, [tsc, '-p', dir])
  const { stdout } = await run(process.execPath, [join(dir, 'dist/index.js')], {
    cwd: dir,
    env: { ...process.env, FLOWPORT_URL: baseUrl, FLOWPORT_TOKEN: 'consumer-secret', CATALOG: process.env.FLOWPORT_TEST_CATALOG }
  })
  t.same(JSON.parse(stdout), {
    status: 'completed',
    greeting: { greeting: 'Hello, Consumer!' },
    unknown: 'WorkflowNotFoundError 404',
    first: 'workflow',
    last: 'done',
    historyEvents: JSON.parse(stdout).historyEvents
  })
  t.ok(JSON.parse(stdout).historyEvents > 5, 'the whole history was followed')
})
