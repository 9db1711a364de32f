/**
 * Process trees of the dev stack under test: start it (as `flowport dev` or `npm start`), find
 * its children, signal it, and tell which of its processes still run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export async function freePort (): Promise<number> {
  return await new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

/** Every process below `pid`, grandchildren included (detached ones too: they keep their parent). */
export function descendants (pid: number): number[] {
  let direct: number[] = []
  try {
    direct = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
  } catch { /* none */ }
  return direct.flatMap((child) => [child, ...descendants(child)])
}

/** Running, that is: an exited process waiting to be reaped (state Z) holds nothing but its pid. */
export function alive (pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

export function commandLine (pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return ''
  }
}

/** The processes of `pids` still running after up to `deadlineMs`, with their command lines. */
export async function survivors (pids: number[], deadlineMs = 10_000): Promise<string[]> {
  const end = Date.now() + deadlineMs
  while (Date.now() < end && pids.some(alive)) await sleep(200)
  return pids.filter(alive).map((pid) => `${pid} ${commandLine(pid)}`)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls until `check` holds (a throwing check counts as not yet) or `attempts` × `everyMs` passed; returns whether it held. */
export async function until (check: () => Promise<boolean> | boolean, attempts = 240, everyMs = 500): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await Promise.resolve().then(check).catch(() => false)) return true
    await sleep(everyMs)
  }
  return false
}

export async function status (url: string): Promise<number> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status
  } catch {
    return 0
  }
}

export interface Stack {
  process: ChildProcess
  base: string
  enginePort: number
  output: () => string
  dataDir: string
  /** The stack's worker, engine or object store process now, if one runs. */
  find: (what: 'worker' | 'deliveries' | 'engine' | 'store') => number | undefined
}

const PATTERNS = { worker: /worker[/\\](src|dist)[/\\]main\.[jt]s$/, deliveries: /worker[/\\](src|dist)[/\\]main\.[jt]s deliveries$/, engine: /temporal.* server start-dev/, store: /versitygw .*posix/ }

/** Starts the dev stack with its own ports and data directory; `via: 'npm'` runs `npm start`. */
export async function startStack (via: 'flowport' | 'npm', extraEnv: Record<string, string> = {}): Promise<Stack> {
  const port = await freePort()
  const enginePort = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'flowport-dev-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    FLOWPORT_ENGINE_PORT: String(enginePort),
    FLOWPORT_ENGINE_UI_PORT: String(await freePort()),
    FLOWPORT_DATA_DIR: dataDir,
    FLOWPORT_STORE_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...extraEnv
  }
  // The embedded engine, its own store and the dev defaults are what is under test, not the shared test engine and bucket.
  for (const name of ['TEMPORAL_ADDRESS', 'HOST', 'SERVICE_CATALOG_ID', 'SERVICE_WORKFLOWS_DIR', 'SERVICE_TRACE_DIR', 'SERVICE_TRACE_S3_BUCKET', ...Object.keys(process.env).filter((n) => n.startsWith('SERVICE_CLOUD_'))]) {
    if (!(name in extraEnv)) delete env[name]
  }
  const child = via === 'npm'
    ? spawn('npm', ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', resolve('cli/flowport.ts'), 'dev'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr?.on('data', (c: Buffer) => { output += c.toString() })
  return {
    process: child,
    base: `http://127.0.0.1:${port}`,
    enginePort,
    dataDir,
    output: () => output,
    find: (what) => descendants(child.pid!).find((pid) => alive(pid) && PATTERNS[what].test(commandLine(pid)))
  }
}

/** Kills whatever is left of a stack (for teardown after a failed assertion). */
export function killStack (stack: Stack): void {
  for (const pid of [...descendants(stack.process.pid!), stack.process.pid!]) {
    try { process.kill(pid, 'SIGKILL') } catch { /* gone */ }
  }
}
