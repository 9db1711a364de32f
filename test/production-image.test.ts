/**
 * The Dockerfile's steps, run literally (there is no Docker engine here): a clean copy of the
 * project, `npm ci` + `npm run build` (build stage), then `npm ci --omit=dev` with only the built
 * files (runtime stage), and both entry points — API and worker with the prebuilt bundle —
 * serving a real run, and the delivery worker polling. Keeps the image honest without building it.
 */
import t from 'tap'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { engineAddress } from './helpers/env.js'
import { imageApiCommand } from '../scripts/dockerfile.js'

/** Production refuses tokens under 16 characters. */
const IMAGE_TOKEN = 'image-token-0123456789'

const repo = process.cwd()
const npm = (cwd: string, ...args: string[]) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: 'pipe', encoding: 'utf8' })

async function freePort (): Promise<number> {
  return await new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

function copyFiles (files: string[], from: string, to: string): void {
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true })
    cpSync(join(from, file), join(to, file), { recursive: true })
  }
}

function stop (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve()
  return new Promise((done) => { child.once('exit', () => done()); child.kill('SIGTERM') })
}

t.test('the image steps produce working api and worker entry points', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'flowport-image-'))
  const build = join(root, 'build')
  const runtime = join(root, 'runtime')
  const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8')
  // The manifests stage's COPY lines: `COPY a b ./` or `COPY core/package.json core/`.
  const manifestStage = dockerfile.split(/^FROM /m).find((stage) => / AS manifests\n/.test(stage)) ?? ''
  const manifests = [...manifestStage.matchAll(/^COPY (.+) \S+$/gm)].flatMap((m) => m[1].split(' '))
  const workspaces = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces
  t.same(manifests.sort(), ['package.json', 'package-lock.json', ...workspaces.map((w) => `${w}/package.json`)].sort(), 'the manifests stage copies every workspace\'s manifest')

  // Build stage: the committed files only, as `COPY . .` with .dockerignore would give.
  const tracked = execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean)
  copyFiles(tracked, repo, build)
  npm(build, 'ci')
  npm(build, 'run', 'build')

  // Runtime stage: production dependencies and the built output, nothing else.
  copyFiles(manifests, build, runtime)
  npm(runtime, 'ci', '--omit=dev')
  copyFiles(['dist', 'core/dist', 'worker/dist', 'examples/dist', 'client/dist', 'bin'], build, runtime)
  cpSync(join(build, 'ui'), join(runtime, 'dist/ui'), { recursive: true })
  t.throws(() => execFileSync('node', ['-e', 'import("tsx")'], { cwd: runtime, stdio: 'pipe' }), 'no dev dependency in the runtime stage')

  // The runtime stage's trace directory: set by ENV, made and given to `node` before `USER node`
  // (/app belongs to root). Here it is made under the test's root, as this user.
  const runtimeStage = dockerfile.split(/^FROM /m).at(-1)!
  const traceDir = /^ENV SERVICE_TRACE_DIR=(\S+)$/m.exec(runtimeStage)?.[1] ?? ''
  t.match(traceDir, /^\/(?!app\/)/, 'the image sets SERVICE_TRACE_DIR to an absolute directory outside /app')
  const prepared = new RegExp(`^RUN mkdir -p ${traceDir} && chown -R node:node (\\S+)$`, 'm').exec(runtimeStage.slice(0, runtimeStage.indexOf('\nUSER node')))
  t.ok(prepared !== null && traceDir.startsWith(prepared[1]), 'made and owned by node before USER node')
  const imageTraceDir = join(root, 'fs', traceDir)
  mkdirSync(imageTraceDir, { recursive: true })

  const catalog = `image-${randomUUID()}`
  const port = await freePort()
  const env = { PATH: process.env.PATH, NODE_ENV: 'production', TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: catalog, SERVICE_TRACE_DIR: imageTraceDir }
  let workerLog = ''
  const worker = spawn('node', ['worker/dist/main.js'], { cwd: runtime, env: { ...env, WORKFLOW_BUNDLE: join(runtime, 'worker/dist/workflow-bundle.js') } })
  worker.stdout?.on('data', (c: Buffer) => { workerLog += c.toString() })
  worker.stderr?.on('data', (c: Buffer) => { workerLog += c.toString() })
  const { nodeFlags, script } = imageApiCommand()
  const api = spawn('node', [...nodeFlags, script], { cwd: runtime, env: { ...env, PORT: String(port), HOST: '127.0.0.1', SERVICE_API_AUTH_TOKEN: IMAGE_TOKEN }, stdio: 'ignore' })
  t.teardown(async () => { await stop(api); await stop(worker) })

  const base = `http://127.0.0.1:${port}`
  let ready = 0
  for (let i = 0; i < 120 && ready !== 200; i++) {
    ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0)
    if (ready !== 200) await new Promise((r) => setTimeout(r, 500))
  }
  t.equal(ready, 200, 'the API is ready once the worker published its catalog')
  t.notMatch(workerLog, /Not using the prebuilt workflow bundle/, 'the worker runs the prebuilt bundle')

  const res = await fetch(`${base}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${IMAGE_TOKEN}` },
    body: JSON.stringify({ workflowName: 'hello', input: { name: 'Image' } })
  })
  t.equal(res.status, 200)
  const result = await res.json() as { trace: { destinations: { local: string | null } } }
  t.match(result, { status: 'completed', output: { greeting: 'Hello, Image!' } })
  const local = result.trace.destinations.local
  t.ok(local?.startsWith(imageTraceDir), 'the result names a trace file in the image\'s trace directory')
  for (let i = 0; i < 60 && !existsSync(local!); i++) await new Promise((r) => setTimeout(r, 500))
  t.ok(existsSync(local!), 'which the worker writes')
  t.notMatch(workerLog, /cannot be written|could not be written/, 'no trace write fails')
  const cli = execFileSync('node', ['bin/flowport.js', 'run', 'hello', '{"name":"Cli"}', '--json', '--url', base, '--token', IMAGE_TOKEN], { cwd: runtime, env, encoding: 'utf8' })
  t.match(JSON.parse(cli), { status: 'completed', output: { greeting: 'Hello, Cli!' } }, 'the flowport client commands work from the image')
  const denied = await fetch(`${base}/workflow/catalog`)
  t.equal(denied.status, 401, 'production requires the token')
  t.equal((await fetch(`${base}/ui/`)).status, 404, 'the inspector is off in production unless SERVICE_UI_ENABLED=true')

  // The command deploy/docker-compose.yml and the Kubernetes file run for the delivery worker.
  let deliveriesLog = ''
  const deliveries = spawn('node', ['dist/cli/flowport.js', 'deliveries'], { cwd: runtime, env })
  deliveries.stdout?.on('data', (c: Buffer) => { deliveriesLog += c.toString() })
  deliveries.stderr?.on('data', (c: Buffer) => { deliveriesLog += c.toString() })
  t.teardown(async () => { await stop(deliveries) })
  for (let i = 0; i < 240 && !deliveriesLog.includes('Delivery worker polling') && deliveries.exitCode === null; i++) await new Promise((r) => setTimeout(r, 500))
  t.match(deliveriesLog, 'Delivery worker polling __flowport_deliveries', `flowport deliveries runs from the image:\n${deliveriesLog}`)
})
