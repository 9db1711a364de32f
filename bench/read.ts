/**
 * `npm run bench -- read`: status and result reads through the API side by side with the raw
 * @temporalio/client doing the same reads, on runs read for the first time and on one closed run
 * read again and again; engine calls per read; API memory per idle SSE stream and at start
 * (targets and method: the section's note, readReport below).
 */
import { execFileSync, fork, spawn } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Client } from '@temporalio/client'
import { Pool } from 'undici'
import { closedLoop, cpuPerOp, cpuSnapshot, f1, f2, interleaved, median, percentiles, processCpuMs, verdict, type ApiTrace, type Cpu, type Percentiles, type ProcessName } from './measure.js'
import { table } from './results.js'
import { measureIdleStreams, type IdleStreams } from './sse.js'
import { ipcCalls, type Api } from './stack.js'
import { imageApiCommand } from '../scripts/dockerfile.js'

export interface ReadOptions {
  /** Requests per first-read measurement (each on a run of its own). */
  runs: number
  /** Requests per repeated-read measurement. */
  repeats: number
  concurrency: number
  /** Each measurement is split in this many rounds, the sides interleaved. */
  rounds: number
  taskQueue: string
  streams: number
  address: string
  namespace: string
  /** The engine's and the worker's processes, for the placements. */
  pids: { engine: number, worker: number }
}

interface RunRef { workflowId: string, runId: string }
type Reader = (run: RunRef) => Promise<void>

/** `cpu`: CPU ms per read of each process while this side ran (the front in the `api` slot: the API, or the bare front). */
export interface Throughput { perSecond: number, latency: Percentiles, cpu?: Cpu }
/**
 * `bare`: the same read through bench/bare-front.mjs, on first reads only. `rounds`: each round's ratio to the raw client's round beside it (the sides run one after the
 * other within a round), the API's and the bare front's; their median is the figure of record.
 */
export interface Measured { label: string, api: Throughput, raw: Throughput, bare?: Throughput, rounds: { api: number[], bare?: number[] } }
export interface StartMemory { label: string, atStart: Memory, settled: Memory, settleMs: number }
interface Memory { rss: number, heapUsed: number, heapTotal: number, external: number }

/**
 * Where the processes run during the first-read figures. `shared`: every process on every CPU, as on
 * one developer's machine, where the engine, the front and the clients compete for the same cores.
 * `split`: the engine (and the idle worker) on the first half of the CPUs and everything else (the API,
 * the bare front, the benchmark's clients, the raw client among them) on the other half, as in a
 * deployment, where the engine runs on machines of its own: a side reaches the engine's ceiling
 * unless its client half (a front and its HTTP client, or the raw client) is the slower part.
 */
export type Placement = 'shared' | 'split'
export const PLACEMENTS: readonly Placement[] = ['shared', 'split']

export interface ReadResults {
  options: ReadOptions
  firstRead: Array<{ placement: Placement, cpus: { engine: string, clients: string }, figures: Measured[] }>
  /** The wait for a quiet engine between making the runs and reading them. */
  settled: { waitedMs: number, quiet: boolean }
  repeated: Measured[]
  engineCalls: { label: string, calls: Record<string, number> }[]
  idle: IdleStreams
  startMemory: StartMemory[]
  /** Status/input reads through the built API as the image runs it, and with V8's default young generation. */
  youngGeneration: { flags: string[], image: Throughput, defaults: Throughput }
}

async function startClosedRuns (temporal: Client, taskQueue: string, n: number): Promise<RunRef[]> {
  const runs: RunRef[] = []
  const tag = Date.now().toString(36)
  await closedLoop(n, 32, async () => {
    const handle = await temporal.workflow.start('hello', { taskQueue, workflowId: `bench-read-${tag}-${runs.length}-${Math.random().toString(36).slice(2)}`, args: [{ name: 'Reader' }] })
    runs.push({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId })
  })
  let waited = 0
  await closedLoop(runs.length, 32, async () => {
    const run = runs[waited++]
    await temporal.workflow.getHandle(run.workflowId, run.runId).result()
  })
  return runs
}

/**
 * Waits until the engine has spent under `busyMsPerS` of CPU in each of `seconds` seconds in a row,
 * at most `maxMs`. Once thousands of runs are made, the engine keeps working in bursts (up to
 * 0.76 s of CPU in a second, measured) for half a minute or so; a burst landing in one side's round
 * would be charged to that side.
 */
async function engineSettled (pid: number, { busyMsPerS = 100, seconds = 8, maxMs = 180_000 } = {}): Promise<{ waitedMs: number, quiet: boolean }> {
  const started = Date.now()
  let inRow = 0
  while (inRow < seconds && Date.now() - started < maxMs) {
    const before = processCpuMs(pid)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    inRow = processCpuMs(pid) - before < busyMsPerS ? inRow + 1 : 0
  }
  return { waitedMs: Date.now() - started, quiet: inRow >= seconds }
}

interface Part { ms: number, latencies: number[], cpu?: Cpu }

const throughput = (parts: Part[]): Throughput => {
  const latencies = parts.flatMap((p) => p.latencies)
  const result: Throughput = { perSecond: latencies.length / (parts.reduce((a, p) => a + p.ms, 0) / 1000), latency: percentiles(latencies) }
  const timed = parts.filter((p) => p.cpu !== undefined)
  if (timed.length > 0) {
    const reads = timed.reduce((a, p) => a + p.latencies.length, 0)
    const keys = Object.keys(timed[0].cpu!) as Array<keyof Cpu>
    result.cpu = Object.fromEntries(keys.map((k) => [k, timed.reduce((a, p) => a + p.cpu![k] * p.latencies.length, 0) / reads])) as Cpu
  }
  return result
}

type Side = 'api' | 'raw' | 'bare'
type Sides = Record<'api' | 'raw', [() => RunRef, Reader]> & { bare?: [() => RunRef, Reader] }
/** The processes whose CPU time is taken around each side's rounds, the side's front as `api`. */
type CpuPids = Record<Side, Record<ProcessName, number>>

/** The sides, in `rounds` rounds whose order flips each time, so drift of the machine hits all alike. */
async function sideBySide (label: string, opts: ReadOptions, n: number, sides: Sides, pids?: CpuPids): Promise<Measured> {
  const parts: Partial<Record<Side, Part[]>> = {}
  const names = (['api', 'raw', 'bare'] as const).filter((side) => sides[side] !== undefined)
  const per = Math.ceil(n / opts.rounds)
  await interleaved(opts.rounds, names, async (side) => {
    const [next, read] = sides[side]!
    const before = pids && cpuSnapshot(pids[side])
    const part: Part = await closedLoop(per, opts.concurrency, async () => { await read(next()) })
    if (pids && before) part.cpu = cpuPerOp(before, cpuSnapshot(pids[side]), part.latencies.length)
    ;(parts[side] ??= []).push(part)
  })
  const perRound = (side: Side) => parts[side]!.map((p, r) => (p.latencies.length / p.ms) / (parts.raw![r].latencies.length / parts.raw![r].ms))
  const result: Measured = {
    label,
    api: throughput(parts.api!),
    raw: throughput(parts.raw!),
    ...(parts.bare ? { bare: throughput(parts.bare) } : {}),
    rounds: { api: perRound('api'), ...(parts.bare ? { bare: perRound('bare') } : {}) }
  }
  const bare = result.bare ? `, bare HTTP front ${f1(result.bare.perSecond)}/s (median ratio ${f2(median(result.rounds.bare!))})` : ''
  console.log(`read: ${label}: API ${f1(result.api.perSecond)}/s, raw ${f1(result.raw.perSecond)}/s, median ratio ${f2(median(result.rounds.api))} (rounds ${result.rounds.api.map(f2).join(' ')})${bare}`)
  return result
}

/** bench/bare-front.mjs in a process of its own: the floor of an HTTP front over the raw client. */
async function startBareFront (address: string, namespace: string): Promise<{ base: string, pid: number, stop: () => void }> {
  const child = fork(resolve('bench/bare-front.mjs'), [], { env: { PATH: process.env.PATH, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const base = await new Promise<string>((listening, failed) => {
    child.once('exit', (code) => failed(new Error(`bench/bare-front.mjs exited with ${code}`)))
    child.once('message', (m: { ready: string }) => listening(m.ready))
  })
  return { base, pid: child.pid ?? 0, stop: () => { child.removeAllListeners('exit'); child.kill('SIGTERM') } }
}

/** Production refuses tokens under 16 characters. */
const TOKEN = 'bench-token-0123456789'

/** GETs through a keep-alive pool of `connections`; an answer other than 200 fails. */
function getter (base: string, connections: number, headers: Record<string, string> = {}) {
  const pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 120_000 })
  const get = async (path: string): Promise<void> => {
    const res = await pool.request({ method: 'GET', path, headers })
    const body = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`GET ${base}${path}: ${res.statusCode} ${body}`)
  }
  return { get, close: async () => { await pool.close() } }
}

interface BuiltApi { base: string, memory: () => Promise<Memory>, stop: () => void }

/**
 * The start-memory figures run the build (the image's CMD and the installed bin), which this
 * benchmark does not make: said before anything is measured, not after minutes of first reads.
 */
export function assertBuilt (): void {
  const missing = [imageApiCommand().script, 'dist/cli/flowport.js', 'core/dist', 'worker/dist'].filter((path) => !existsSync(resolve(path)))
  if (missing.length > 0) throw new Error(`the read benchmark runs the built API; missing: ${missing.join(', ')}. Run \`npm run build\` first`)
}

/**
 * A built API in a process of its own, started by `command` (an executable and its arguments) as a
 * user would start it: GC exposed and bench/memory-probe.mjs (memory answered over IPC) loaded
 * through NODE_OPTIONS, so that the command's own node flags (a shebang's included) stay its own.
 */
async function startBuiltApi (address: string, namespace: string, command: string[]): Promise<BuiltApi> {
  const [executable, ...args] = command
  const child = spawn(executable, args, {
    env: { PATH: process.env.PATH, NODE_OPTIONS: `--expose-gc --import ${resolve('bench/memory-probe.mjs')}`, NODE_ENV: 'production', SERVICE_API_AUTH_TOKEN: TOKEN, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc']
  })
  const base = await new Promise<string>((listening, failed) => {
    child.once('exit', (code) => failed(new Error(`${command.join(' ')} exited with ${code}`)))
    child.stdout?.on('data', (chunk: Buffer) => {
      const at = /Server listening at (http:\/\/[^\s"]+)/.exec(chunk.toString())
      if (at) listening(at[1])
    })
  })
  const call = ipcCalls(child)
  return { base, memory: async () => await call<Memory>('memory'), stop: () => { child.removeAllListeners('exit'); child.kill('SIGTERM') } }
}

/**
 * The package's bin as an installed build has it: bin/ beside dist/, without the TypeScript source
 * and tsx it would run in this checkout (the image's layout). Run as an executable, its shebang
 * included. The caller removes the directory.
 */
function installedBin (): { bin: string, dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-bin-'))
  mkdirSync(join(dir, 'bin'))
  const bin = join(dir, 'bin', 'flowport.js')
  copyFileSync(resolve('bin/flowport.js'), bin)
  chmodSync(bin, 0o755)
  symlinkSync(resolve('dist'), join(dir, 'dist'))
  return { bin, dir }
}

/** Memory right after it listens, and once idle. */
async function measureStartMemory (label: string, api: BuiltApi, settleMs: number): Promise<StartMemory> {
  const atStart = await api.memory()
  await new Promise((resolve) => setTimeout(resolve, settleMs))
  return { label, atStart, settled: await api.memory(), settleMs }
}

/**
 * The image's young-generation cap (`api`) against V8's default (`raw`), on one workload: repeated
 * status and input reads of one closed run, `concurrency` in flight, in interleaved rounds.
 */
async function compareFlags (withFlags: BuiltApi, withDefaults: BuiltApi, run: RunRef, opts: ReadOptions): Promise<Measured> {
  const getters = [withFlags, withDefaults].map((api) => getter(api.base, opts.concurrency, { authorization: `Bearer ${TOKEN}` }))
  const [flags, defaults] = getters.map(({ get }): [() => RunRef, Reader] => {
    let i = 0
    return [() => run, async (r) => { await get(`/workflow/${encodeURIComponent(r.workflowId)}/${i++ % 2 === 0 ? 'status' : 'input'}`) }]
  })
  try {
    for (const [next, read] of [flags, defaults]) await closedLoop(200, opts.concurrency, async () => { await read(next()) }) // warm-up
    return await sideBySide('image flags (API) vs V8 defaults (raw)', opts, opts.repeats, { api: flags, raw: defaults })
  } finally {
    await Promise.all(getters.map(async (g) => { await g.close() }))
  }
}

/** CPU lists (taskset's syntax) for each placement, on this machine's CPUs. */
function cpuSets (placement: Placement): { engine: string, clients: string } {
  const n = cpus().length
  const all = `0-${n - 1}`
  if (placement === 'shared' || n < 2) return { engine: all, clients: all }
  const half = Math.floor(n / 2)
  return { engine: `0-${half - 1}`, clients: `${half}-${n - 1}` }
}

/** Moves every thread of each process onto `cpus` (util-linux taskset); threads started later inherit it. */
function pin (cpuList: string, pids: number[]): void {
  for (const pid of pids) execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpuList, String(pid)], { stdio: 'ignore' })
}

export async function runReadBenchmark (apiHandle: Api, temporal: Client, opts: ReadOptions): Promise<ReadResults> {
  const { get, close } = getter(apiHandle.base, opts.concurrency)
  const enc = encodeURIComponent
  const api = {
    status: async (r: RunRef) => { await get(`/workflow/${enc(r.workflowId)}/status`) },
    statusPinned: async (r: RunRef) => { await get(`/workflow/${enc(r.workflowId)}/runs/${r.runId}/status`) },
    result: async (r: RunRef) => { await get(`/workflow/${enc(r.workflowId)}/result`) },
    resultPinned: async (r: RunRef) => { await get(`/workflow/${enc(r.workflowId)}/runs/${r.runId}/result`) }
  }
  const raw = {
    describe: async (r: RunRef) => { await temporal.workflow.getHandle(r.workflowId).describe() },
    result: async (r: RunRef) => { await temporal.workflow.getHandle(r.workflowId).result() }
  }
  const front = await startBareFront(opts.address, opts.namespace)
  const { get: bareGet, close: closeBare } = getter(front.base, opts.concurrency)
  const bare = {
    describe: async (r: RunRef) => { await bareGet(`/describe/${enc(r.workflowId)}`) },
    result: async (r: RunRef) => { await bareGet(`/result/${enc(r.workflowId)}`) }
  }
  try {
    const warm = 100
    const counted = 10
    // Four first-read figures in each placement, each on fresh runs for every side.
    const perSide = Math.ceil(opts.runs / opts.rounds) * opts.rounds
    const firstReads = PLACEMENTS.length * 4 * 3 * perSide
    console.log(`read: starting ${firstReads + 3 * warm + 4 * counted + 1} closed hello runs`)
    const all = await startClosedRuns(temporal, opts.taskQueue, firstReads + 3 * warm + 4 * counted + 1)
    let taken = 0
    const fresh = () => all[taken++]
    const one = fresh()

    // Warm-up: JIT, connections, the catalog cache; on runs of their own.
    for (const read of [api.result, raw.result, bare.result]) await closedLoop(warm, opts.concurrency, async () => { await read(fresh()) })
    for (let i = 0; i < 200; i++) { await api.resultPinned(one); await raw.result(one) }

    // Engine calls per read: sequential requests, counted by the API process' wrapped client.
    const engineCalls: ReadResults['engineCalls'] = []
    const count = async (label: string, read: Reader, runs: () => RunRef) => {
      await apiHandle.call('traceOn')
      for (let i = 0; i < counted; i++) await read(runs())
      const { counts } = await apiHandle.call<ApiTrace>('trace')
      await apiHandle.call('traceOff')
      engineCalls.push({ label, calls: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / counted])) })
    }
    await count('status, first read', api.status, fresh)
    await count('result, first read', api.result, fresh)
    await count('result (pinned), first read', api.resultPinned, fresh)
    await count('input (pinned), first read', async (r) => { await get(`/workflow/${enc(r.workflowId)}/runs/${r.runId}/input`) }, fresh)
    await count('status, repeated', api.status, () => one)
    await count('status (pinned), repeated', api.statusPinned, () => one)
    await count('result, repeated', api.result, () => one)
    await count('result (pinned), repeated', api.resultPinned, () => one)

    const settled = await engineSettled(opts.pids.engine)
    console.log(`read: the engine ${settled.quiet ? 'was quiet' : 'was still busy'} after ${f1(settled.waitedMs / 1000)} s`)

    // 1. First reads: every request on a closed run nobody read before, each side on runs of its own.
    // The runs are dealt out in turn (one to each side, then the next), so that every side reads runs
    // of the same ages: the engine keeps the newest in its cache.
    const deal = (sides: number): Array<() => RunRef> => {
      const hands = Array.from({ length: sides }, (): RunRef[] => [])
      for (let i = 0; i < sides * perSide; i++) hands[i % sides].push(fresh())
      return hands.map((hand) => { let i = 0; return () => hand[i++] })
    }
    const figure = async (label: string, apiRead: Reader, rawRead: Reader, bareRead: Reader): Promise<Measured> => {
      const [a, r, b] = deal(3)
      return await sideBySide(label, opts, perSide, { api: [a, apiRead], raw: [r, rawRead], bare: [b, bareRead] }, cpuPids)
    }
    const others = { engine: opts.pids.engine, worker: opts.pids.worker, bench: process.pid }
    const cpuPids: CpuPids = { api: { ...others, api: apiHandle.pid }, raw: { ...others, api: apiHandle.pid }, bare: { ...others, api: front.pid } }
    const firstRead: ReadResults['firstRead'] = []
    const everywhere = cpuSets('shared').engine
    try {
      for (const placement of PLACEMENTS) {
        const sets = cpuSets(placement)
        pin(sets.engine, [opts.pids.engine, opts.pids.worker])
        pin(sets.clients, [process.pid, apiHandle.pid, front.pid])
        console.log(`read: first reads, ${placement}: the engine on CPUs ${sets.engine}, the API, the bare front and the clients on ${sets.clients}`)
        firstRead.push({
          placement,
          cpus: sets,
          figures: [
            await figure('`GET /workflow/{id}/status` vs `describe()`', api.status, raw.describe, bare.describe),
            await figure('`GET /workflow/{id}/runs/{rid}/status` vs `describe()`', api.statusPinned, raw.describe, bare.describe),
            await figure('`GET /workflow/{id}/result` vs `result()`', api.result, raw.result, bare.result),
            await figure('`GET /workflow/{id}/runs/{rid}/result` vs `result()`', api.resultPinned, raw.result, bare.result)
          ]
        })
      }
    } finally {
      pin(everywhere, [opts.pids.engine, opts.pids.worker, process.pid, apiHandle.pid, front.pid])
    }

    // 2. Repeated reads of one closed run.
    const same = () => one
    const m = opts.repeats
    const repeated = [
      await sideBySide('`GET /workflow/{id}/runs/{rid}/status` vs `describe()`', opts, m, { api: [same, api.statusPinned], raw: [same, raw.describe] }),
      await sideBySide('`GET /workflow/{id}/runs/{rid}/result` vs `result()`', opts, m, { api: [same, api.resultPinned], raw: [same, raw.result] }),
      await sideBySide('`GET /workflow/{id}/status` vs `describe()`', opts, m, { api: [same, api.status], raw: [same, raw.describe] }),
      await sideBySide('`GET /workflow/{id}/result` vs `result()`', opts, m, { api: [same, api.result], raw: [same, raw.result] })
    ]

    // 3. Memory: per idle SSE stream (this API process), and the production API at start.
    const idle = await measureIdleStreams(apiHandle, temporal, opts.streams)
    // The built API as the `flowport api` command runs it (the package's bin) and as the image's CMD runs it.
    const image = imageApiCommand()
    const startMemory: StartMemory[] = []
    const installed = installedBin()
    try {
      const cli = await startBuiltApi(opts.address, opts.namespace, [installed.bin, 'api'])
      try { startMemory.push(await measureStartMemory('`flowport api` (bin/flowport.js, its shebang\'s node flags)', cli, 15_000)) } finally { cli.stop() }
    } finally {
      rmSync(installed.dir, { recursive: true, force: true })
    }
    const imaged = await startBuiltApi(opts.address, opts.namespace, [process.execPath, ...image.nodeFlags, image.script])
    try { startMemory.push(await measureStartMemory(`\`node ${[...image.nodeFlags, image.script].join(' ')}\` (the image's CMD)`, imaged, 15_000)) } finally { imaged.stop() }

    // What the image's node flags cost: the same reads through both.
    const withFlags = await startBuiltApi(opts.address, opts.namespace, [process.execPath, ...image.nodeFlags, image.script])
    const withDefaults = await startBuiltApi(opts.address, opts.namespace, [process.execPath, image.script])
    let youngGeneration: ReadResults['youngGeneration']
    try {
      const compared = await compareFlags(withFlags, withDefaults, one, opts)
      youngGeneration = { flags: image.nodeFlags, image: compared.api, defaults: compared.raw }
    } finally {
      withFlags.stop()
      withDefaults.stop()
    }
    return { options: opts, firstRead, settled, repeated, engineCalls, idle, startMemory, youngGeneration }
  } finally {
    await close()
    await closeBare()
    front.stop()
  }
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
/** The verdict goes by the median of the round ratios; the ratio of the totals is shown beside it. */
const row = (m: Measured, target: number) => {
  const ratio = median(m.rounds.api)
  const bare = m.bare ? ` ${f1(m.bare.perSecond)}/s, p50 ${f1(m.bare.latency.p50)} ms | ${f2(median(m.rounds.bare!))} |` : ''
  return `| ${m.label} | ${f1(m.api.perSecond)}/s, p50 ${f1(m.api.latency.p50)} ms | ${f1(m.raw.perSecond)}/s, p50 ${f1(m.raw.latency.p50)} ms | ${f2(ratio)} | ≥ ${target} | ${verdict(ratio >= target)} | ${m.rounds.api.map(f2).join(' ')} | ${f2(m.api.perSecond / m.raw.perSecond)} |${bare}`
}

const cpuCell = (t: Throughput, front: boolean) => t.cpu === undefined ? '—' : [f2(t.cpu.engine), front ? f2(t.cpu.api) : '—', f2(t.cpu.bench)].join(' / ')

export function readReport (r: ReadResults, machine: string): string {
  const o = r.options
  const perStream = r.idle.perStreamHeapBytes + r.idle.perStreamExternalBytes
  const calls = r.engineCalls.map(({ label, calls }) => {
    const total = Object.values(calls).reduce((a, b) => a + b, 0)
    const names = Object.entries(calls).map(([k, v]) => `${k} ${f1(v)}`).join(', ')
    return `| ${label} | ${f1(total)} | ${names || '—'} |`
  })
  return `## Read path: status and result against the raw client; memory

${machine}
${o.concurrency} requests in flight through one undici \`Pool\`; the raw client (\`@temporalio/client\`, \`handle.describe()\`,
\`handle.result()\`) in the benchmark process with the same concurrency; ${o.rounds} rounds per figure, the sides one after
the other within a round, in turn first and last. A ratio is the median of the rounds' ratios (a side's reads per second
over the raw client's in the same round), so that a burst of the engine's own work in one round does not decide it; the
ratio of the sides' totals is shown beside it. Before the first reads, the benchmark waited ${f1(r.settled.waitedMs / 1000)} s for the engine to
${r.settled.quiet ? 'go quiet' : 'go quiet, and it did not (the figures carry its bursts)'} (under 0.1 s of CPU in each of 8 seconds in a row) after making the runs.

### Runs read for the first time (${o.runs} requests per side, each on a closed \`hello\` run nobody read before)

Each figure's runs are dealt out in turn to the three sides, so that each reads runs of the same ages.
${r.firstRead.map((p) => `
**${p.placement === 'shared' ? 'Shared CPUs' : 'Engine apart'}**: the engine on CPUs ${p.cpus.engine}; the API, the bare front and the benchmark's clients on CPUs ${p.cpus.clients}.

${table(['Read', 'API', 'raw client', 'ratio', 'target', '', 'each round\'s ratio', 'ratio of the totals', 'floor: bare HTTP front', 'its ratio'], p.figures.map((m) => row(m, 0.9)))}

CPU ms per read, engine / front / the benchmark process (its HTTP clients, or the raw client):

${table(['Read', 'API', 'raw client', 'bare HTTP front'], p.figures.map((m) => `| ${m.label} | ${cpuCell(m.api, true)} | ${cpuCell(m.raw, false)} | ${m.bare ? cpuCell(m.bare, true) : '—'} |`))}
`).join('')}
The floor columns: the same reads through bench/bare-front.mjs, a node:http server in a process of its own that
calls the raw client's \`describe()\` or \`result()\` and answers JSON (no routing library, validation, auth, logging,
metrics or cache), alternating round by round with the other two sides.

With shared CPUs, the engine, the front and the clients compete for the same ${cpus().length} cores: every millisecond of CPU a front
spends is taken from the engine, so a ratio the bare front does not reach, no front on this machine can. With the engine
apart (as in a deployment, where it runs on machines of its own), the raw client is held by what the engine serves;
a front reaches the same figure unless it and its HTTP client together need more CPU per read than the engine does.
Processes are placed with util-linux \`taskset\`.

### One closed run read again and again (${o.repeats} requests per side)

${table(['Read', 'API', 'raw client', 'ratio', 'target', '', 'each round\'s ratio', 'ratio of the totals'], r.repeated.map((m, i) => row(m, i < 2 ? 2 : 0.9)))}

The pinned forms of a closed run answer from the closed-run cache without an engine call. The unpinned forms still ask
the engine which run is current on every request (the status with a describe, the result with the first page of the
id's history, which names a short run), so that a new run, a continue-as-new or a reset is never hidden; only the rest
comes from the cache, so they make one engine call like the raw client, plus the HTTP hop and the API's own work on
the same cores.

### Engine calls per request (sequential, counted in the API process)

${table(['Read', 'calls', 'which'], calls)}

### Memory

| Figure | Target | Measured | |
|---|---|---|---|
| API memory per idle SSE stream, heap + external after forced GC (${o.streams} streams) | ≤ 8 KiB | ${kib(perStream)} (heap ${kib(r.idle.perStreamHeapBytes)}, external ${kib(r.idle.perStreamExternalBytes)}; RSS delta ${kib(r.idle.perStreamRssBytes)}) | ${verdict(perStream <= 8 * 1024)} |
${r.startMemory.map((m) => `| Production API, ${m.label}, RSS right after it listens, after forced GC | ≤ 104 MiB | ${mib(m.atStart.rss)} (heap used ${mib(m.atStart.heapUsed)} of ${mib(m.atStart.heapTotal)}) | ${verdict(m.atStart.rss <= 104 * 2 ** 20)} |
| The same process ${m.settleMs / 1000} s later, idle, after forced GC | ≤ 104 MiB | ${mib(m.settled.rss)} (heap used ${mib(m.settled.heapUsed)} of ${mib(m.settled.heapTotal)}) | ${verdict(m.settled.rss <= 104 * 2 ** 20)} |`).join('\n')}

What the image's \`${r.youngGeneration.flags.join(' ')}\` costs: repeated status and input reads of one closed run
(${o.concurrency} in flight, ${o.rounds} interleaved rounds) through the built API with it, ${f1(r.youngGeneration.image.perSecond)}/s
(p50 ${f1(r.youngGeneration.image.latency.p50)} ms), and with V8's defaults, ${f1(r.youngGeneration.defaults.perSecond)}/s
(p50 ${f1(r.youngGeneration.defaults.latency.p50)} ms): ratio ${f2(r.youngGeneration.image.perSecond / r.youngGeneration.defaults.perSecond)}.

Memory per stream: the API's \`process.memoryUsage()\` after four forced GCs, before opening ${o.streams} streams on a run
that does nothing and after 3 s idle, divided by the number of streams. Start memory: the built API, each command as
labelled, with \`NODE_ENV=production\`, connected to this run's engine, measured over IPC by bench/memory-probe.mjs (loaded
with \`--expose-gc\` through NODE_OPTIONS). What holds the
memory and what was changed: docs/performance.md, "Read path and memory".
`
}
