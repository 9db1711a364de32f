/**
 * `npm start` reloads the worker when the workflow code it loaded changes (cli/worker-reload.ts):
 * a real stack started as `npm start` does, with a local workflows folder (a copy made here, in
 * the repository so that its imports resolve), edited while the stack runs. A good edit serves new
 * runs and the run in flight, which completes on the new worker; a broken edit is logged with its
 * error and the previous code keeps serving; the edit after it loads again.
 */
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { killStack, startStack, status, until } from './helpers/processes.js'

t.setTimeout(900_000)

const WORKFLOW = `import { Type } from '@sinclair/typebox'
import { condition, defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { word } = useSteps<typeof steps>()

export const reloaded = defineWorkflow({
  name: 'reloaded',
  description: 'Waits for the go signal when asked to, then calls its step.',
  inputSchema: Type.Object({ wait: Type.Boolean() }),
  outputSchema: Type.Object({ word: Type.String() }),
  signals: { go: {} },
  async run (input, ctx) {
    let go = !input.wait
    ctx.onSignal('go', () => { go = true })
    await condition(() => go)
    return await word({})
  }
})
`

const steps = (body: string) => `import { Type } from '@sinclair/typebox'
import { defineStep } from '@flowport/worker'

${body}
`
const wordStep = (word: string) => steps(`export const word = defineStep({
  name: 'word',
  inputSchema: Type.Object({}),
  outputSchema: Type.Object({ word: Type.String() }),
  run: () => ({ word: '${word}' })
})`)

async function json (url: string, init: RequestInit = {}): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers }, signal: AbortSignal.timeout(60_000) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

const count = (text: string, pattern: RegExp): number => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0

t.test('an edit reloads the worker: new runs and the run in flight take the new code; a broken edit leaves the old code serving', async (t) => {
  const dir = t.testdir({
    'index.ts': "export { reloaded } from './reloaded/workflow.js'\n",
    reloaded: { 'workflow.ts': WORKFLOW, 'steps.ts': wordStep('one') }
  })
  const stepsFile = join(dir, 'reloaded', 'steps.ts')
  const stack = await startStack('npm', { SERVICE_WORKFLOWS_DIR: dir })
  t.teardown(() => { killStack(stack) })
  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), '/ready')
  t.ok(await until(() => /watching \d+ workflow sources? for changes/.test(stack.output())), 'the log says what it watches')
  const run = async () => (await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'reloaded', input: { wait: false } }) })).body
  t.match(await run(), { status: 'completed', output: { word: 'one' } })

  // A run in flight: it waits for its signal across the reload.
  const started = await json(`${stack.base}/workflow/start`, { method: 'POST', body: JSON.stringify({ workflowName: 'reloaded', input: { wait: true } }) })
  t.equal(started.status, 200)
  const inFlight = started.body.workflowId as string

  const reloaded = /\[dev\] worker reloaded \(pid \d+\) after a change to \S*reloaded\/steps\.ts/
  writeFileSync(stepsFile, wordStep('two'))
  t.ok(await until(() => count(stack.output(), reloaded) === 1, 600), 'the log says "worker reloaded", naming the file')
  t.match(await run(), { status: 'completed', output: { word: 'two' } }, 'a new run takes the new code')
  t.ok((await json(`${stack.base}/workflow/${inFlight}/signal/go`, { method: 'POST', body: '{}' })).status < 300, 'signalled')
  let result: { status: number, body: any } | undefined
  t.ok(await until(async () => { result = await json(`${stack.base}/workflow/${inFlight}/result`); return result.body?.status === 'completed' }), 'the run in flight completes')
  t.same(result?.body.output, { word: 'two' }, 'on the new worker')

  // A syntax error: logged by name, the stack goes on, the previous code serves.
  const notReloaded = /\[dev\] worker not reloaded after a change to \S*reloaded\/steps\.ts: (.*)/g
  writeFileSync(stepsFile, wordStep('three').replace('run: () =>', 'run: () => ((('))
  t.ok(await until(() => count(stack.output(), notReloaded) === 1, 600), 'the failed reload is logged')
  t.match([...stack.output().matchAll(notReloaded)][0]?.[1], /DefinitionError: \S*steps\.ts: failed to load: .*Expected/, 'with the error')
  t.match(await run(), { status: 'completed', output: { word: 'two' } }, 'the previous worker still serves')

  // A definition error (an export of the steps module that is no step).
  writeFileSync(stepsFile, wordStep('three') + 'export const helper = 42\n')
  t.ok(await until(() => count(stack.output(), notReloaded) === 2, 600), 'the second failed reload is logged')
  t.match([...stack.output().matchAll(notReloaded)][1]?.[1], /DefinitionError: .*steps\.ts.*helper/, 'naming the definition error')
  t.match(await run(), { status: 'completed', output: { word: 'two' } }, 'the previous worker still serves')
  t.equal(await status(`${stack.base}/ready`), 200, 'the stack is ready throughout')

  // Several writes at once (an editor's save, a formatter after it) make one reload.
  for (const word of ['four-a', 'four-b', 'four']) writeFileSync(stepsFile, wordStep(word))
  t.ok(await until(() => count(stack.output(), reloaded) === 2, 600), 'the edit after the broken ones reloads')
  t.match(await run(), { status: 'completed', output: { word: 'four' } })
  t.equal(count(stack.output(), reloaded) + count(stack.output(), notReloaded), 4, 'one reload for the burst of writes')
})
