/**
 * The S3-compatible object store of `npm start` and `npm run cluster`: versitygw
 * (github.com/versity/versitygw, Apache-2.0), a real S3 gateway whose `posix` backend keeps each
 * object as a file. Found in this order: `VERSITYGW_PATH` (a binary of one's own), the cache, the
 * project's published release for this platform (seconds, where GitHub is reachable, checked
 * against the release's checksums), and a build from the Go module proxy like the cluster's
 * Temporal server (cli/go-install.ts; minutes, and how a machine that reaches only the module
 * proxy gets it). Why this one and not MinIO or moto: docs/large-payloads.md ("The store of
 * `npm start` and `npm run cluster`").
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import { formatSeconds } from '@flowport/core/duration'
import { binaryFromEnv, cacheDir, isExecutable } from './temporal-binary.js'
import { goInstallCached } from './go-install.js'

const run = promisify(execFile)

/** The release deploy/docker-compose.yml and deploy/kubernetes/flowport.yaml pin as the `versity/versitygw` image. */
export const VERSITYGW_VERSION = '1.8.0'

const cachedDir = (): string => join(cacheDir(), `versitygw-${VERSITYGW_VERSION}`)

/** The release's archive for this platform (goreleaser's names: `versitygw_v1.8.0_Linux_x86_64`), if it publishes one. */
export function releaseAsset (): string | undefined {
  const os = ({ linux: 'Linux', darwin: 'Darwin', freebsd: 'Freebsd' } as Partial<Record<NodeJS.Platform, string>>)[process.platform]
  const arch = ({ x64: 'x86_64', arm64: 'arm64' } as Partial<Record<string, string>>)[process.arch]
  return os !== undefined && arch !== undefined ? `versitygw_v${VERSITYGW_VERSION}_${os}_${arch}` : undefined
}

/** VERSITYGW_RELEASE_URL: a mirror of the release's files (the archive and checksums.txt). */
const releaseUrl = (): string => process.env.VERSITYGW_RELEASE_URL || `https://github.com/versity/versitygw/releases/download/v${VERSITYGW_VERSION}`
/** Offline, the first request fails at once (no name resolution); a reachable but stalled host gets this long. */
const CHECKSUMS_TIMEOUT_MS = 15_000
const ARCHIVE_TIMEOUT_MS = 300_000

const goOnPath = (): boolean => (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, 'go')))

/**
 * How the binary will be had, known at once (no request, no build): 'ready' (VERSITYGW_PATH or
 * the cache), 'fetch' (the published release, else a build with the Go toolchain: seconds to
 * minutes the first time), or why it cannot be.
 */
export function objectStoreBinaryPlan (): 'ready' | 'fetch' | { missing: string } {
  const own = process.env.VERSITYGW_PATH
  if (own !== undefined && own !== '') return isExecutable(own) ? 'ready' : { missing: `VERSITYGW_PATH=${own} is not an executable file` }
  if (isExecutable(join(cachedDir(), 'versitygw'))) return 'ready'
  return releaseAsset() !== undefined || goOnPath() ? 'fetch' : { missing: 'building versitygw needs the Go toolchain (`go` on PATH), or VERSITYGW_PATH' }
}

/**
 * The published release's binary into the cache, its archive checked against the release's
 * checksums.txt; unpacked into a side folder of this process and renamed at the end, as a build.
 */
async function downloadRelease (asset: string, dir: string, signal?: AbortSignal): Promise<string> {
  const base = releaseUrl()
  const get = async (name: string, timeoutMs: number): Promise<Buffer> => {
    const bounded = AbortSignal.timeout(timeoutMs)
    const res = await fetch(`${base}/${name}`, { signal: signal === undefined ? bounded : AbortSignal.any([signal, bounded]) })
    if (!res.ok) throw new Error(`${base}/${name} answered ${res.status}`)
    return Buffer.from(await res.arrayBuffer())
  }
  const archive = `${asset}.tar.gz`
  const sums = (await get('checksums.txt', CHECKSUMS_TIMEOUT_MS)).toString('utf8')
  const expected = sums.split('\n').map((l) => l.trim().split(/\s+/)).find(([, name]) => name === archive)?.[0]
  if (expected === undefined) throw new Error(`${base}/checksums.txt lists no ${archive}`)
  const bytes = await get(archive, ARCHIVE_TIMEOUT_MS)
  const actual = createHash('sha256').update(bytes).digest('hex')
  if (actual !== expected) throw new Error(`${archive} has SHA-256 ${actual}, checksums.txt says ${expected}`)
  const partial = `${dir}.download-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { recursive: true })
  try {
    writeFileSync(join(partial, archive), bytes)
    await run('tar', ['-xzf', archive], { cwd: partial, signal })
    // goreleaser wraps the files in a folder named after the archive.
    const found = [join(partial, asset, 'versitygw'), join(partial, 'versitygw')].find((p) => statSync(p, { throwIfNoEntry: false })?.isFile())
    if (found === undefined) throw new Error(`${archive} holds no versitygw binary (${readdirSync(partial).join(', ')})`)
    const unpacked = join(partial, 'bin')
    mkdirSync(unpacked)
    renameSync(found, join(unpacked, 'versitygw'))
    if (!isExecutable(join(dir, 'versitygw'))) {
      rmSync(dir, { recursive: true, force: true })
      renameSync(unpacked, dir)
    }
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
  return join(dir, 'versitygw')
}

export async function findObjectStoreBinary (log: (m: string) => void = () => {}, signal?: AbortSignal): Promise<{ path: string, source: 'environment' | 'cache' | 'downloaded' | 'built' }> {
  const own = binaryFromEnv('VERSITYGW_PATH')
  if (own !== undefined) return { path: own, source: 'environment' }
  const dir = cachedDir()
  const cached = join(dir, 'versitygw')
  if (isExecutable(cached)) return { path: cached, source: 'cache' }
  const asset = releaseAsset()
  if (asset !== undefined) {
    const started = Date.now()
    try {
      log(`Downloading versitygw ${VERSITYGW_VERSION} (the S3-compatible object store) from ${releaseUrl()} into ${dir} …`)
      const path = await downloadRelease(asset, dir, signal)
      log(`Downloaded versitygw ${VERSITYGW_VERSION} in ${formatSeconds(Date.now() - started)}`)
      return { path, source: 'downloaded' }
    } catch (err) {
      if (signal?.aborted === true) throw err
      // fetch says only `fetch failed`; the reason (ENOTFOUND github.com …) is its cause.
      const cause = (err as Error).cause as { code?: string, message?: string } | undefined
      const reason = [(err as Error).message, cause?.code ?? cause?.message].filter(Boolean).join(': ').split('\n')[0]
      log(`Could not download it (${reason}); building it instead`)
    }
  }
  const { paths: [path], source } = await goInstallCached({
    what: `versitygw ${VERSITYGW_VERSION} (the S3-compatible object store)`,
    dir,
    signal,
    packages: [`github.com/versity/versitygw/cmd/versitygw@v${VERSITYGW_VERSION}`],
    binaries: ['versitygw'],
    instead: 'VERSITYGW_PATH'
  }, log)
  return { path, source }
}
