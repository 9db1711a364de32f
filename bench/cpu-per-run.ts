/**
 * `npm run bench -- cpu-per-run [<other worktree>]`: what one run costs in CPU, by process, on a
 * stack started as `npm start` starts it, beside the bare SDK's floor on the same engine (the
 * method: the section's note below). The load is issue 55's.
 *
 * With a worktree path (e.g. `git worktree add ../wt-80abcae 80abcae`), the same stack of that
 * tree is measured too, its rounds alternating with this tree's.
 *
 * BENCH_CPU_PROFILE=<dir>: the main threads of the API and the worker are profiled during the
 * measured runs (bench/cpu-prof-preload.mjs) into <dir>/<side>-<round>/<pid>.cpuprofile, with
 * window.json naming the pids: `tsx bench/cpu-profile.ts <dir>/<side>-<round>` summarises where the
 * milliseconds go, and the `cpu-profile` section is written instead of `cpu-per-run` (profiling
 * costs CPU itself: its rounds' figures are not the ones to compare).
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, Connection } from '@temporalio/client'
import { stopProcess } from '../cli/supervise.js'
import { closedLoop, f1, median, processCpuMs } from './measure.js'
import { keepFigures, machineNote, table, writeSection } from './results.js'
import { post } from './stack.js'
import { commandLine, descendants } from '../test/helpers/processes.js'
import { profileReport, summariseDir } from './cpu-profile.js'

const RUNS = Number(process.env.CPU_RUNS ?? 1000)
const WARMUP = Number(process.env.CPU_WARMUP ?? 200)
const CONCURRENCY = Number(process.env.CPU_CONCURRENCY ?? 200)
const ROUNDS = Number(process.env.CPU_ROUNDS ?? 2)
const PROFILE = process.env.BENCH_CPU_PROFILE
const BARE_QUEUE = 'bench-bare-sdk'

const here = resolve(fileURLToPath(new URL('..', import.meta.url)))
const other = process.argv.slice(2).find((a) => a !== 'cpu-per-run')
const trees = [here, ...(other === undefined ? [] : [resolve(other)])]

const STACK = ['api', 'worker', 'engine', 'store'] as const
type StackProcess = typeof STACK[number]
type Pids = Partial<Record<StackProcess | 'bare', number>>

interface Round {
  tree: string
  commit: string
  round: number
  /** CPU ms per run of each process of the stack, and of the benchmark's HTTP client. */
  stack: Record<StackProcess | 'client', number>
  runsPerSecond: number
  /** The bare SDK on the same engine: CPU ms per run of the engine, the bare worker, the raw client. */
  bare: { engine: number, worker: number, client: number, runsPerSecond: number }
  loadavg: number[]
}

const commitOf = (tree: string) => execSync('git log -1 --format=%h', { cwd: tree, encoding: 'utf8' }).trim()
const sideName = (tree: string) => (tree === here ? 'this tree' : basename(tree))

function stackPids (dev: ChildProcess): Pids {
  const pids: Pids = { api: dev.pid }
  for (const pid of descendants(dev.pid ?? 0)) {
    const cmd = commandLine(pid)
    if (/worker\/(src\/main\.ts|dist\/main\.js)/.test(cmd)) pids.worker = pid
    else if (/versitygw/.test(cmd)) pids.store = pid
    else if (/temporal.* server start-dev/.test(cmd)) pids.engine = pid
  }
  return pids
}

const cpuOf = (pids: Pids): Record<string, number> => Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuMs(pid)]))

/** `npm start` of `tree` on fresh data; resolves once the API answers and, where the tree runs one, the store is attached. */
async function startStack (tree: string, profileDir: string | undefined) {
  const data = mkdtempSync(join(tmpdir(), 'flowport-bench-cpu-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FLOWPORT_DATA_DIR: data,
    PORT: '0',
    FLOWPORT_ENGINE_PORT: '0',
    FLOWPORT_ENGINE_UI_PORT: '0',
    FLOWPORT_STORE_PORT: '0',
    // `--cpu-prof` is refused in NODE_OPTIONS and would cover the start too: a preload profiles on signal.
    ...(profileDir === undefined ? {} : { NODE_OPTIONS: `--import=${join(here, 'bench/cpu-prof-preload.mjs')}`, BENCH_CPU_PROFILE_DIR: profileDir })
  }
  delete env.TEMPORAL_ADDRESS
  delete env.LOG_LEVEL
  const dev = spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', 'cli/flowport.ts', 'dev'], { cwd: tree, env, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const seen = (re: RegExp) => new Promise<RegExpExecArray>((done, fail) => {
    const check = () => { const m = re.exec(out); if (m) { dev.stdout?.off('data', check); done(m) } }
    dev.stdout?.on('data', check)
    dev.once('exit', (code) => { fail(new Error(`npm start in ${tree} exited with ${code}:\n${out.slice(-3000)}`)) })
    check()
  })
  dev.stdout?.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const [, base] = await seen(/ {2}API +(http:\/\/\S+)/)
  const [, temporal] = await seen(/ {2}Temporal +(\S+)/)
  // A tree whose `npm start` runs a store: its Store line (in the banner or once attached).
  const hasStore = readFileSync(join(tree, 'cli/dev-stack.ts'), 'utf8').includes('planDevStore')
  if (hasStore) await seen(/ {2}Store +http/)
  return { dev, base, temporal, data, hasStore }
}

const postRun = async (base: string) => { await post(base, '/workflow/run', { workflowName: 'hello', input: { name: 'bench' } }) }

async function untilAnswered (op: () => Promise<void>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try { await op(); return } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 500))
    }
  }
}

async function measureRound (tree: string, round: number): Promise<Round> {
  const profileDir = PROFILE === undefined ? undefined : resolve(PROFILE, `${basename(tree)}-${round}`)
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true })
  const load = loadavg()
  const stack = await startStack(tree, profileDir)
  let bareWorker: ChildProcess | undefined
  const connection = await Connection.connect({ address: stack.temporal })
  try {
    const pids = stackPids(stack.dev)
    if (pids.worker === undefined || pids.engine === undefined || (stack.hasStore && pids.store === undefined)) throw new Error(`processes of the stack not found: ${JSON.stringify(pids)}`)
    await untilAnswered(async () => { await postRun(stack.base) })
    await closedLoop(WARMUP, CONCURRENCY, async () => { await postRun(stack.base) })

    const profiled = [pids.api, pids.worker] as number[]
    if (profileDir !== undefined) for (const pid of profiled) process.kill(pid, 'SIGUSR2')
    const before: Record<string, number> = { ...cpuOf(pids), client: processCpuMs(process.pid) }
    const { ms } = await closedLoop(RUNS, CONCURRENCY, async () => { await postRun(stack.base) })
    const after: Record<string, number> = { ...cpuOf(pids), client: processCpuMs(process.pid) }
    if (profileDir !== undefined) {
      for (const pid of profiled) process.kill(pid, 'SIGUSR2')
      await new Promise((r) => setTimeout(r, 3000)) // the profiles are written
    }
    if (profileDir !== undefined) writeFileSync(join(profileDir, 'window.json'), JSON.stringify({ pids, runs: RUNS }))
    const per = (k: string) => (after[k] - before[k]) / RUNS

    // The floor, on the same engine: the bare SDK worker and the raw client.
    const bareEntry = join(here, 'bench/bare-sdk/worker.ts')
    bareWorker = spawn(process.execPath, ['--import', 'tsx', bareEntry], { cwd: here, env: { ...process.env, TEMPORAL_ADDRESS: stack.temporal, TEMPORAL_NAMESPACE: 'default', TASK_QUEUE: BARE_QUEUE, NODE_OPTIONS: '' }, stdio: ['ignore', 'ignore', 'inherit'] })
    const client = new Client({ connection, namespace: 'default' })
    let n = 0
    const bareOp = async () => { await client.workflow.execute('bareHello', { taskQueue: BARE_QUEUE, workflowId: `bench-bare-${round}-${n++}`, args: ['bench'] }) }
    await untilAnswered(bareOp)
    await closedLoop(WARMUP, CONCURRENCY, bareOp)
    const barePids: Pids = { engine: pids.engine, bare: bareWorker.pid }
    const b0: Record<string, number> = { ...cpuOf(barePids), client: processCpuMs(process.pid) }
    const bare = await closedLoop(RUNS, CONCURRENCY, bareOp)
    const b1: Record<string, number> = { ...cpuOf(barePids), client: processCpuMs(process.pid) }
    const barePer = (k: string) => (b1[k] - b0[k]) / RUNS

    return {
      tree,
      commit: commitOf(tree),
      round,
      stack: { api: per('api'), worker: per('worker'), engine: per('engine'), store: pids.store === undefined ? 0 : per('store'), client: per('client') },
      runsPerSecond: RUNS / (ms / 1000),
      bare: { engine: barePer('engine'), worker: barePer('bare'), client: barePer('client'), runsPerSecond: RUNS / (bare.ms / 1000) },
      loadavg: load
    }
  } finally {
    await connection.close()
    if (bareWorker) await stopProcess(bareWorker, 10_000)
    await stopProcess(stack.dev, 30_000)
    rmSync(stack.data, { recursive: true, force: true })
  }
}

const total = (r: Round) => STACK.reduce((a, p) => a + r.stack[p], 0)
const bareTotal = (r: Round) => r.bare.engine + r.bare.worker

function report (rounds: Round[]): string {
  const sides = trees.map((tree) => rounds.filter((r) => r.tree === tree))
  const med = (rs: Round[], f: (r: Round) => number) => median(rs.map(f))
  const cols = sides.map((rs) => `${sideName(rs[0].tree)} (${rs[0].commit})`)
  const row = (label: string, f: (r: Round) => number, bold = false) =>
    `| ${bold ? `**${label}**` : label} | ${sides.map((rs) => (bold ? `**${f1(med(rs, f))}**` : f1(med(rs, f)))).join(' | ')} |`
  const roundRows = rounds.map((r) => `| ${r.round + 1} | ${sideName(r.tree)} (${r.commit}) | ${f1(r.stack.api)} | ${f1(r.stack.worker)} | ${f1(r.stack.engine)} | ${f1(r.stack.store)} | **${f1(total(r))}** | ${r.runsPerSecond.toFixed(1)} | ${f1(r.bare.worker)} | ${f1(bareTotal(r))} | ${r.bare.runsPerSecond.toFixed(1)} | ${r.loadavg.map((l) => l.toFixed(1)).join(' / ')} |`)
  return `## CPU per run: \`POST /workflow/run\` of \`hello\`, ${CONCURRENCY} in flight

${process.env.CPU_REPORT_FROM === undefined ? machineNote() : `Rounds measured by an earlier run, saved in ${process.env.CPU_REPORT_FROM} at ${statSync(process.env.CPU_REPORT_FROM).mtime.toISOString()} (the load average of each round is in the table below).`}
\`npm run bench -- cpu-per-run${other === undefined ? '' : ` ${other}`}\` (bench/cpu-per-run.ts). Each round starts a stack as \`npm start\` does (the API in the dev
process, the worker, the engine on a fresh SQLite file, the object store where the tree has one), runs ${WARMUP} runs to warm up, then
measures ${RUNS} runs with ${CONCURRENCY} in flight: CPU ms per run of each process (/proc utime + stime, all threads). Then, on the same
engine, the floor: the bare SDK worker (bench/bare-sdk/) running \`bareHello\` (one step, like \`hello\`), started by the raw client, the
same number with as many in flight. ${sides.length > 1 ? 'The trees alternate round by round (A B B A …). ' : ''}Medians of ${ROUNDS} round(s) per side.

| CPU ms per run (median) | ${cols.join(' | ')} |
|---|${cols.map(() => '---|').join('')}
${row('API (dev process)', (r) => r.stack.api)}
${row('Worker', (r) => r.stack.worker)}
${row('Engine', (r) => r.stack.engine)}
${row('Object store', (r) => r.stack.store)}
${row('Whole stack', total, true)}
${row('Runs/s', (r) => r.runsPerSecond, true)}
${row('Benchmark\'s HTTP client (not counted above)', (r) => r.stack.client)}
${row('Floor: bare SDK worker', (r) => r.bare.worker)}
${row('Floor: engine under the bare SDK', (r) => r.bare.engine)}
${row('Floor: bare SDK worker + engine', bareTotal, true)}
${row('Floor: runs/s', (r) => r.bare.runsPerSecond)}
${row('Floor: raw client (not counted above)', (r) => r.bare.client)}
${row('Worker ÷ bare SDK worker, same round', (r) => r.stack.worker / r.bare.worker, true)}
${row('Whole stack ÷ floor (bare worker + engine), same round', (r) => total(r) / bareTotal(r), true)}

${table(['Round', 'Side', 'API', 'Worker', 'Engine', 'Store', 'Stack', 'Runs/s', 'Bare worker', 'Bare + engine', 'Bare runs/s', 'Load average before'], roundRows)}

Load averages are the machine's (1 / 5 / 15 min) before each round's stack started: the machine is shared, so absolute
figures move with it (a round under twice the load shows up to twice the CPU per run: cache misses, context switches,
the engine's timers). The sides are compared round by round, and through the ratios to the floor measured in the same
round on the same engine, which the load moves alike.
`
}

const rounds: Round[] = []
// CPU_REPORT_FROM=<json>: the section again from a run's saved rounds (e.g. after the report changed), nothing measured.
if (process.env.CPU_REPORT_FROM !== undefined) rounds.push(...JSON.parse(readFileSync(process.env.CPU_REPORT_FROM, 'utf8')) as Round[])
for (let r = 0; r < ROUNDS && process.env.CPU_REPORT_FROM === undefined; r++) {
  for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
    const result = await measureRound(tree, r)
    console.log(`round ${r + 1} ${sideName(tree)} (${result.commit}): stack ${f1(total(result))} ms/run (api ${f1(result.stack.api)}, worker ${f1(result.stack.worker)}, engine ${f1(result.stack.engine)}, store ${f1(result.stack.store)}), ${result.runsPerSecond.toFixed(1)} runs/s; bare ${f1(bareTotal(result))} ms/run (worker ${f1(result.bare.worker)}), ${result.bare.runsPerSecond.toFixed(1)} runs/s`)
    rounds.push(result)
  }
}
if (process.env.CPU_REPORT_FROM === undefined) console.log(`all figures in ${keepFigures('cpu-per-run', rounds)}`)
if (PROFILE === undefined) writeSection('cpu-per-run', report(rounds))
else {
  // Profiled rounds' /proc figures carry the profiler's cost: printed, not written; the profiles' section is.
  console.log(report(rounds))
  const summaries = rounds.flatMap((r) => summariseDir(`${sideName(r.tree)} (${r.commit}), round ${r.round + 1}`, resolve(PROFILE, `${basename(r.tree)}-${r.round}`)))
  writeSection('cpu-profile', profileReport(summaries, `${machineNote()}\n\`BENCH_CPU_PROFILE=<dir> npm run bench -- cpu-per-run${other === undefined ? '' : ` ${other}`}\` (${RUNS} runs per round, ${CONCURRENCY} in flight).`))
}
