/**
 * The object store's binary on an empty cache: the project's published release is preferred to a
 * build, and its archive is checked against the release's checksums.txt. The release is served
 * here by a local server with files of the release's shape (VERSITYGW_RELEASE_URL, as a mirror):
 * this test's machine does not reach GitHub, and what is under test is the download, not the
 * binary (a stand-in script; the dev-stack tests run the real store).
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findObjectStoreBinary, releaseAsset, VERSITYGW_VERSION } from '../cli/object-store-binary.js'

const asset = releaseAsset()
t.ok(asset, `versitygw publishes a release for ${process.platform}/${process.arch}`)
const release = mkdtempSync(join(tmpdir(), 'flowport-versitygw-release-'))
const script = '#!/bin/sh\necho versitygw\n'
mkdirSync(join(release, asset!))
writeFileSync(join(release, asset!, 'versitygw'), script, { mode: 0o755 })
writeFileSync(join(release, asset!, 'LICENSE'), 'Apache-2.0\n')
execFileSync('tar', ['-czf', `${asset}.tar.gz`, asset!], { cwd: release })
const sha256 = createHash('sha256').update(readFileSync(join(release, `${asset}.tar.gz`))).digest('hex')
let checksums = `${'0'.repeat(64)}  versitygw_v${VERSITYGW_VERSION}_Other_arch.tar.gz\n${sha256}  ${asset}.tar.gz\n`

const requests: string[] = []
const server = createServer((req, res) => {
  requests.push(req.url!)
  if (req.url === '/checksums.txt') res.end(checksums)
  else if (req.url === `/${asset}.tar.gz`) res.end(readFileSync(join(release, `${asset}.tar.gz`)))
  else res.writeHead(404).end()
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
t.teardown(() => { server.close() })

const saved = { ...process.env }
t.teardown(() => { process.env = saved })
process.env.VERSITYGW_RELEASE_URL = `http://127.0.0.1:${(server.address() as { port: number }).port}`
delete process.env.VERSITYGW_PATH

t.test('an empty cache gets the published release, checked, and later finds it in the cache', async (t) => {
  process.env.FLOWPORT_CACHE_DIR = mkdtempSync(join(tmpdir(), 'flowport-cache-'))
  requests.length = 0
  const lines: string[] = []
  const found = await findObjectStoreBinary((m) => lines.push(m))
  const expected = join(process.env.FLOWPORT_CACHE_DIR, `versitygw-${VERSITYGW_VERSION}`, 'versitygw')
  t.same(found, { path: expected, source: 'downloaded' }, 'downloaded into the cache')
  t.equal(readFileSync(expected, 'utf8'), script, 'the archive\'s binary')
  t.equal(execFileSync(expected, { encoding: 'utf8' }), 'versitygw\n', 'executable')
  t.same(requests, ['/checksums.txt', `/${asset}.tar.gz`])
  t.match(lines.join('\n'), /Downloaded versitygw/)
  t.notMatch(lines.join('\n'), /Building/, 'nothing is built')
  t.same(await findObjectStoreBinary(), { path: expected, source: 'cache' }, 'the next start finds it in the cache')
  t.equal(requests.length, 2, 'without a request')
})

t.test('an archive that does not match the release\'s checksum is refused, and a build is tried instead', async (t) => {
  process.env.FLOWPORT_CACHE_DIR = mkdtempSync(join(tmpdir(), 'flowport-cache-'))
  checksums = checksums.replace(sha256, 'f'.repeat(64))
  // No Go on PATH, so the build it falls back to fails at once rather than building for minutes.
  process.env.PATH = '/usr/bin:/bin'
  t.notOk(existsSync('/usr/bin/go') || existsSync('/bin/go'), 'no Go on that PATH')
  const lines: string[] = []
  await t.rejects(findObjectStoreBinary((m) => lines.push(m)), /needs the Go toolchain/, 'the build needs Go')
  t.match(lines.join('\n'), new RegExp(`Could not download it \\(${asset}\\.tar\\.gz has SHA-256 ${sha256}, checksums\\.txt says f{64}\\); building it instead`))
  t.notOk(existsSync(join(process.env.FLOWPORT_CACHE_DIR, `versitygw-${VERSITYGW_VERSION}`, 'versitygw')), 'nothing lands in the cache')
})
