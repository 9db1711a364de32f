/**
 * `npm start`'s promise: one command brings up engine, worker and API; SIGTERM stops all three.
 */
import t from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

async function freePort (): Promise<number> {
  return await new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

/** Every process below `pid`, grandchildren included. */
function descendants (pid: number): number[] {
  let direct: number[] = []
  try {
    direct = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
  } catch { /* none */ }
  return direct.flatMap((child) => [child, ...descendants(child)])
}

/** Running, that is: an exited process waiting to be reaped (state Z) holds nothing but its pid. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

async function poll (url: string, until: (status: number) => boolean, attempts: number): Promise<number> {
  let status = 0
  for (let i = 0; i < attempts; i++) {
    try {
      status = (await fetch(url)).status
      if (until(status)) return status
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 500))
  }
  return status
}

t.test('flowport dev serves /health and /ready, and SIGTERM leaves no process behind', async (t) => {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', FLOWPORT_DATA_DIR: mkdtempSync(join(tmpdir(), 'flowport-dev-')), LOG_LEVEL: 'warn' }
  delete env.TEMPORAL_ADDRESS // the embedded engine is what is under test
  const dev = spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', resolve('cli/flowport.ts'), 'dev'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  dev.stdout.on('data', (c: Buffer) => { output += c.toString() })
  dev.stderr.on('data', (c: Buffer) => { output += c.toString() })
  t.teardown(() => { if (dev.exitCode === null) dev.kill('SIGKILL') })

  const base = `http://127.0.0.1:${port}`
  t.equal(await poll(`${base}/health`, (s) => s === 200, 240), 200, '/health answers 200')
  t.equal(await poll(`${base}/ready`, (s) => s === 200, 240), 200, '/ready answers 200 once the worker published the catalog')
  t.match(output, /Swagger UI\s+http:\/\/localhost:\d+\/docs/, 'prints the Swagger UI address')
  t.match(output, /Temporal UI\s+http:\/\/127\.0\.0\.1:\d+/, 'prints the Temporal UI address')

  const children = descendants(dev.pid!)
  t.ok(children.length >= 2, 'engine and worker run as child processes')
  const exitCode = await new Promise<number | null>((done) => {
    dev.once('exit', (code) => done(code))
    dev.kill('SIGTERM')
  })
  t.equal(exitCode, 0, 'exits cleanly')
  const survivors = children.filter(alive).map((pid) => {
    try {
      return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim()
    } catch {
      return String(pid)
    }
  })
  t.same(survivors, [], 'no orphan process')
})
