/**
 * The `flowport` command line: usage errors, settings errors before anything starts, and
 * `flowport worker` stopping with nothing left behind.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { loadConfig } from '../plugins/external/config/index.js'
import { engineAddress } from './helpers/env.js'
import { descendants, survivors, until } from './helpers/processes.js'

function flowport (args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', resolve('cli/flowport.ts'), ...args], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

t.test('an unknown command says so, prints the usage and exits 2', async (t) => {
  const run = flowport(['serve'])
  t.equal(await run.exited, 2)
  t.match(run.stderr(), /^Unknown command: serve\nUsage: flowport <command>/)
  // A long description goes on over indented lines.
  t.match(run.stderr(), /\n {2}dev .*\n(?: {3,}.*\n)* {2}api .*\n {2}worker .*\n {2}deliveries .*\n(?: {3,}.*\n)* {2}engine /)
})

t.test('help prints the usage and exits 0', async (t) => {
  const run = flowport(['help'])
  t.equal(await run.exited, 0)
  t.match(run.stdout(), /^Usage: flowport <command>/)
})

t.test('a bad setting for the dev stack is one line naming it, before the engine starts', async (t) => {
  for (const [name, value] of [['PORT', 'abc'], ['ENGINE_MAX_CACHED_WORKFLOWS', '-1'], ['FLOWPORT_ENGINE_PORT', '70000']]) {
    const run = flowport(['dev'], { [name]: value, TEMPORAL_ADDRESS: '' })
    t.equal(await run.exited, 1, `${name}: exit code 1`)
    const lines = run.stderr().trim().split('\n')
    t.same(lines.length, 1, `${name}: one line`)
    t.match(lines[0], new RegExp(`^Invalid setting ${name}="${value}": Expected`), `${name}: names the setting and what is expected`)
    t.notMatch(run.stdout() + run.stderr(), /engine|temporal CLI|\n\s+at /, `${name}: no engine started, no stack trace`)
  }
})

t.test('the production API listens on all interfaces by default', async (t) => {
  t.equal(loadConfig({}).HOST, '0.0.0.0')
})

t.test('flowport worker stops on SIGTERM and leaves no process behind', async (t) => {
  const catalog = `cli-worker-${randomUUID()}`
  const run = flowport(['worker'], { TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows') })
  t.teardown(() => { run.child.kill('SIGKILL') })
  t.ok(await until(() => run.stderr().includes(`Worker polling catalog ${catalog}`)), 'the worker polls')
  const pids = [run.child.pid!, ...descendants(run.child.pid!)]
  run.child.kill('SIGTERM')
  t.equal(await run.exited, 0, 'exit code 0')
  t.same(await survivors(pids), [], 'no process remains')
  t.match(run.stderr(), 'Worker stopped')
})
