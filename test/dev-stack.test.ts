/**
 * `npm start`'s promise: one command brings up engine, worker and API on 127.0.0.1, and SIGTERM,
 * sent to the npm process, to the `flowport` process or to the process group, stops all of it.
 */
import t, { type Test } from 'tap'
import { networkInterfaces } from 'node:os'
import { descendants, killStack, startStack, status, survivors, until, type Stack } from './helpers/processes.js'

t.setTimeout(600_000)

async function ready (t: Test, stack: Stack): Promise<void> {
  t.teardown(() => { killStack(stack) })
  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), '/ready answers 200 once the worker published the catalog')
  t.ok(stack.find('worker') && stack.find('engine'), 'engine and worker run as child processes')
}

async function stopsEverything (t: Test, stack: Stack, signal: () => void): Promise<void> {
  const pids = [stack.process.pid!, ...descendants(stack.process.pid!)]
  const exited = new Promise<number | null>((done) => stack.process.once('exit', (code) => done(code)))
  signal()
  t.same(await survivors(pids), [], 'no process of the stack remains')
  // npm ends by re-raising the signal it forwarded; `flowport dev` itself exits 0.
  if (stack.process.spawnfile !== 'npm') t.equal(await exited, 0, 'exits cleanly')
}

/** An address of this machine other than loopback, if it has one. */
function externalAddress (): string | undefined {
  return Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address
}

t.test('flowport dev listens on 127.0.0.1, prints readable lines, and SIGTERM to it stops everything', async (t) => {
  const stack = await startStack('flowport', { LOG_LEVEL: 'info' })
  await ready(t, stack)
  const port = new URL(stack.base).port
  t.equal(await status(`${stack.base}/health`), 200)
  t.match(stack.output(), new RegExp(`Swagger UI\\s+http://127\\.0\\.0\\.1:${port}/docs`), 'prints the Swagger UI address')
  t.match(stack.output(), /Temporal UI\s+http:\/\/127\.0\.0\.1:\d+/, 'prints the Temporal UI address')
  t.match(stack.output(), new RegExp(`Inspector\\s+http://127\\.0\\.0\\.1:${port}/ui/`), 'prints the inspector\'s address')
  t.equal(await status(`${stack.base}/ui/`), 200, 'which serves the page')
  const settings = await (await fetch(`${stack.base}/ui/settings.json`)).json() as { temporalUiUrl: string | null }
  t.match(settings.temporalUiUrl, /^http:\/\/127\.0\.0\.1:\d+/, 'and knows where the embedded engine\'s UI is')
  const external = externalAddress()
  if (external) t.equal(await status(`http://${external}:${port}/health`), 0, `not reachable on ${external}`)
  else t.pass('no other interface to check')

  for (let i = 0; i < 5; i++) await status(`${stack.base}/ready`)
  await status(`${stack.base}/catalog`)
  const output = stack.output()
  t.match(output, /INFO: \[api\] Server listening at http:\/\/127\.0\.0\.1:\d+/, 'API log lines are formatted for reading')
  t.notMatch(output, /^\{"level"/m, 'no JSON log line')
  t.notMatch(output, /"url":"\/ready"|url: "\/ready"|\/ready/, 'no log line per /ready poll')
  t.match(output, /\/catalog/, 'other requests are logged')
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})

t.test('SIGTERM to the npm process stops everything', async (t) => {
  const stack = await startStack('npm')
  await ready(t, stack)
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})

t.test('SIGTERM to the process group of npm start stops everything', async (t) => {
  const stack = await startStack('npm')
  await ready(t, stack)
  await stopsEverything(t, stack, () => process.kill(-stack.process.pid!, 'SIGTERM'))
})
