/**
 * `npm run fuzz`: schemathesis against the dev stack, with the malformed pass (fuzz-malformed.ts)
 * before it and the neighbour probe (fuzz-neighbour.ts) during both; what each checks and what
 * fails the run: docs/quality.md, "Fuzzing". No hooks: the cases are what the document lets any
 * generator build. scripts/fuzz.toml lists, per operation, the documented statuses a schema-valid
 * request can still get and why.
 *
 * Settings: FUZZ_MAX_EXAMPLES (default 50 per operation), FUZZ_SEED (replay a run), FUZZ_WORKERS
 * (default 1: with more, Hypothesis calls ast.parse from several threads, which Python 3.11.7
 * fails with "AST constructor recursion depth mismatch"), FUZZ_REPORT_DIR (keep a JUnit report
 * there), FUZZ_ARGS (more schemathesis options, space-separated, e.g. `--include-operation-id listRuns`),
 * FLOWPORT_CACHE_DIR (default ~/.cache/flowport, where schemathesis is installed).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from '../cli/engine.js'
import { until } from '../test/helpers/processes.js'
import { pythonVenv } from '../test/helpers/python-venv.js'
import { describeMalformed, sendMalformed } from './fuzz-malformed.js'
import { describeProbe, startNeighbourProbe } from './fuzz-neighbour.js'

const SCHEMATHESIS_VERSION = '4.32.5'
/** Above SERVICE_RUN_MAX_TIMEOUT_MS below, so a waiting /workflow/run is answered (408) before this. */
const REQUEST_TIMEOUT_S = 30
const READY_TIMEOUT_MS = 180_000
const STOP_GRACE_MS = 60_000
/** Longer than any run the fuzzer should meet open on purpose (a /workflow/run waits up to 3 s). */
const REAP_AFTER_MS = 5000

const root = resolve(import.meta.dirname, '..')
const log = (message: string) => { console.log(`# fuzz: ${message}`) }

/** The dev stack (cli/dev-stack.ts) as a direct child: SIGTERM stops API, worker and engine in order. */
function startStack (env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a')
  return spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', 'cli/flowport.ts', 'dev'], {
    cwd: root, env, stdio: ['ignore', out, out], detached: true
  })
}

async function stopStack (stack: ChildProcess): Promise<void> {
  if (stack.exitCode !== null || stack.signalCode !== null) return
  const exited = new Promise<void>((done) => stack.once('exit', () => { done() }))
  stack.kill('SIGTERM')
  const timer = setTimeout(() => {
    log('the dev stack did not stop in time: killing its process group')
    try { process.kill(-stack.pid!, 'SIGKILL') } catch { /* gone */ }
  }, STOP_GRACE_MS)
  await exited
  clearTimeout(timer)
}

async function waitUntilReady (base: string, stack: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (stack.exitCode !== null) throw new Error(`the dev stack exited with code ${stack.exitCode}`)
    const status = await fetch(`${base}/ready`).then((r) => r.status, () => 0)
    if (status === 200) return
    await new Promise((done) => setTimeout(done, 500))
  }
  throw new Error(`${base}/ready did not answer 200 within ${READY_TIMEOUT_MS} ms`)
}

/**
 * Closed runs for the id-based operations to meet: completed under "0" (the id Hypothesis
 * generates first), and failed, continued-as-new and parent-of-a-child runs under ids the fuzzer
 * meets when it lists runs in the stateful phase.
 */
async function seed (base: string, token: string): Promise<void> {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  const runs: Array<[string, string, unknown]> = [
    ['0', 'hello', { name: 'fuzz' }],
    ['fuzz-failed', 'explode', { message: 'fuzz' }],
    ['fuzz-chain', 'relay', { hops: 2 }],
    ['fuzz-parent', 'parent', { name: 'fuzz' }]
  ]
  for (const [workflowId, workflowName, input] of runs) {
    const started = await api('POST', '/workflow/start', { workflowName, workflowId, input })
    if (started.status !== 200) throw new Error(`seeding ${workflowName} failed: ${started.status} ${JSON.stringify(started.body)}`)
  }
  // They must have closed before the fuzzer meets them (their streams then end).
  for (const [workflowId] of runs) {
    if (!await until(async () => (await api('GET', `/workflow/${workflowId}/result`)).status === 200, 100, 100)) throw new Error(`seeded run ${workflowId} did not close`)
  }
}

/**
 * A stream ends only when its run closes, and its heartbeat (every 15 s) keeps the fuzzer's read
 * timeout from ever firing: a run the fuzzer started and left open (the start example is an
 * `approval` that waits for its signal) would hang the whole run on its stream. Every open run is
 * terminated once it is REAP_AFTER_MS old.
 */
function startReaper (base: string, token: string): () => Promise<void> {
  const headers = { authorization: `Bearer ${token}` }
  let busy: Promise<void> = Promise.resolve()
  const sweep = async () => {
    const res = await fetch(`${base}/workflow/runs?status=running&pageSize=1000`, { headers })
    if (res.status !== 200) return
    const { runs } = await res.json() as { runs: Array<{ workflowId: string, runId: string, startTime: string | null }> }
    for (const run of runs) {
      if (Date.now() - Date.parse(run.startTime ?? '') < REAP_AFTER_MS) continue
      await fetch(`${base}/workflow/${encodeURIComponent(run.workflowId)}/runs/${run.runId}/terminate`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'fuzz: left open' })
      })
    }
  }
  const timer = setInterval(() => { busy = busy.then(sweep).catch(() => {}) }, 1000)
  return async () => {
    clearInterval(timer)
    await busy
  }
}

function runSchemathesis (python: string, base: string, token: string, cwd: string): ChildProcess {
  const args = [
    '-m', 'schemathesis.cli', '--config-file', join(root, 'scripts', 'fuzz.toml'), 'run', `${base}/openapi.json`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing,stateful',
    '--max-examples', process.env.FUZZ_MAX_EXAMPLES ?? '50',
    '--workers', process.env.FUZZ_WORKERS ?? '1',
    '--request-timeout', String(REQUEST_TIMEOUT_S),
    '--generation-database', 'none',
    '--header', `Authorization: Bearer ${token}`,
    ...(process.env.FUZZ_SEED ? ['--seed', process.env.FUZZ_SEED] : []),
    ...(process.env.FUZZ_REPORT_DIR ? ['--report', 'junit', '--report-dir', resolve(process.env.FUZZ_REPORT_DIR)] : []),
    ...(process.env.FUZZ_ARGS?.split(' ').filter(Boolean) ?? [])
  ]
  return spawn(python, args, { cwd, stdio: 'inherit' })
}

/** The API's own 500s (logged with their stacks) say more than the fuzzer's summary. */
function reportInternalErrors (logFile: string): void {
  const lines = readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('"level":50'))
  if (lines.length === 0) return
  log(`${lines.length} internal error(s) in the API log:`)
  for (const line of lines.slice(0, 20)) console.log(line.slice(0, 2000))
}

const work = mkdtempSync(join(tmpdir(), 'flowport-fuzz-'))
const logFile = join(work, 'stack.log')
let stack: ChildProcess | undefined
let fuzzer: ChildProcess | undefined
let exitCode = 1
const started = Date.now()
try {
  const { python } = pythonVenv(`schemathesis-${SCHEMATHESIS_VERSION}`, [`schemathesis==${SCHEMATHESIS_VERSION}`], log)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const token = randomBytes(24).toString('base64url')
  stack = startStack({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    FLOWPORT_DATA_DIR: join(work, 'data'),
    SERVICE_API_AUTH_TOKEN: token,
    // Every /workflow/run and stop escalation answers within 3 s, whatever `timeout` was generated.
    SERVICE_RUN_TIMEOUT_MS: '3000',
    SERVICE_RUN_MAX_TIMEOUT_MS: '3000',
    // The runs feed never ends by itself: each session the fuzzer opens ends within 0.3 s.
    SERVICE_SSE_HEARTBEAT_MS: '100',
    SERVICE_RUNS_FEED_SESSION_MS: '200',
    // The fuzzer alone sends about 100 requests a second: at the default limit (6,000 a minute per
    // key) operations fuzzed late were mostly answered 429, fuzzed in name only. The limiter stays
    // on, far above what the fuzzer and the neighbour send together.
    SERVICE_RATE_LIMIT_MAX: '1000000',
    LOG_LEVEL: 'warn',
    TEMPORAL_ADDRESS: ''
  }, logFile)
  // Interrupted: schemathesis and the stack (its own process group, out of reach of a terminal's Ctrl-C) stop too.
  const stopOnSignal = () => {
    fuzzer?.kill('SIGTERM')
    void (stack ? stopStack(stack) : Promise.resolve()).then(() => {
      log(`interrupted: dev stack stopped, kept ${work}`)
      process.exit(130)
    })
  }
  process.once('SIGINT', stopOnSignal)
  process.once('SIGTERM', stopOnSignal)
  log(`dev stack on ${base} (log: ${logFile})`)
  await waitUntilReady(base, stack)
  await seed(base, token)
  const stopReaper = startReaper(base, token)
  // The neighbour shares the fuzzer's key: the stack as the fuzzer sees it, with a rate limit far
  // above what both send (a 429 would be allowed anyway).
  const probe = startNeighbourProbe({ base, token })
  const document = await (await fetch(`${base}/openapi.json`)).json() as Parameters<typeof sendMalformed>[2]
  const malformed = describeMalformed(await sendMalformed(base, token, document))
  for (const line of malformed.lines) log(line)
  fuzzer = runSchemathesis(python, base, token, work)
  const fuzzed = await new Promise<number>((done) => fuzzer!.once('exit', (code) => done(code ?? 1)))
  const neighbour = describeProbe(await probe.stop())
  await stopReaper()
  for (const line of neighbour.lines) log(line)
  reportInternalErrors(logFile)
  exitCode = fuzzed !== 0 ? fuzzed : malformed.passed && neighbour.passed ? 0 : 1
} catch (err) {
  console.error(err instanceof Error ? err.message : err)
  if (existsSync(logFile)) console.error(readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n'))
} finally {
  if (stack) await stopStack(stack)
  if (exitCode === 0) rmSync(work, { recursive: true, force: true })
  else log(`kept ${work} (stack log)`)
}
log(`${exitCode === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`)
process.exit(exitCode)
