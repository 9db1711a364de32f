/**
 * deploy/nginx.conf passes `nginx -t` (Debian's nginx, installed with apt-get when missing and
 * running as root) here, offline, where no `api` host exists: nginx resolves the replicas while it
 * runs (through the `resolver`), never at start. The same file with the name written into
 * proxy_pass, resolved at start as before, fails the same check.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'

const run = promisify(execFile)
const NGINX = '/usr/sbin/nginx'

async function nginxBinary (): Promise<string> {
  if (existsSync(NGINX)) return NGINX
  if (process.getuid?.() !== 0) throw new Error('nginx is not installed: `apt-get install -y nginx-light` (as root), then run this again')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run('apt-get', ['update', '-qq'], { env, timeout: 600_000 })
  await run('apt-get', ['install', '-y', '-qq', 'nginx-light'], { env, timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 })
  if (!existsSync(NGINX)) throw new Error(`apt-get installed nginx-light, but no ${NGINX} appeared`)
  return NGINX
}

/** `nginx -t` on `serverConf` included in `http {}`, as the image's main file includes conf.d/: its exit code and output. */
async function check (t: Test, serverConf: string): Promise<{ code: number, output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-nginx-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const main = join(dir, 'nginx.conf')
  writeFileSync(main, `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents {}\nhttp { include ${serverConf}; }\n`)
  try {
    const { stdout, stderr } = await run(await nginxBinary(), ['-t', '-p', dir, '-c', main, '-e', join(dir, 'error.log')])
    return { code: 0, output: stdout + stderr }
  } catch (err) {
    const failed = err as { code: number, stdout: string, stderr: string }
    return { code: failed.code, output: failed.stdout + failed.stderr }
  }
}

t.test('deploy/nginx.conf passes nginx -t offline: the replicas are resolved while nginx runs', async (t) => {
  const shipped = await check(t, resolve('deploy/nginx.conf'))
  t.equal(shipped.code, 0, shipped.output)
  t.match(shipped.output, /test is successful/)

  // The control: a host written into proxy_pass is resolved at start, and fails here.
  const dir = mkdtempSync(join(tmpdir(), 'flowport-nginx-literal-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const literal = readFileSync('deploy/nginx.conf', 'utf8').replace('proxy_pass $flowport_api;', 'proxy_pass http://api.invalid:3001;')
  t.not(literal, readFileSync('deploy/nginx.conf', 'utf8'), 'the control differs from the shipped file')
  writeFileSync(join(dir, 'literal.conf'), literal)
  const control = await check(t, join(dir, 'literal.conf'))
  t.not(control.code, 0, 'resolved at start: refused offline')
  t.match(control.output, /host not found in upstream "api\.invalid"/)
})
