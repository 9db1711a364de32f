/**
 * Servers built from the Go module proxy with the machine's Go toolchain into the Flowport cache
 * (cli/temporal-binary.ts's `cacheDir`): the Temporal server of the cluster
 * (cli/cluster/server-binary.ts) and the S3-compatible object store of the dev stack and the
 * cluster (cli/object-store-binary.ts). The first build takes minutes; every later start finds the
 * binaries in the cache.
 */
import { execFile } from 'node:child_process'
import { renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { formatSeconds } from '@flowport/core/duration'
import { isExecutable } from './temporal-binary.js'

const run = promisify(execFile)

export interface GoBuild {
  /** What is built, for the log and the errors ("Temporal server 1.32.0 and its SQL tool"). */
  what: string
  /** The cache folder the binaries end up in. */
  dir: string
  /** `module/cmd/x@vX.Y.Z`: `go install pkg@version` needs no module of one's own. */
  packages: string[]
  /** The binaries `go install` writes (each named after its package folder). */
  binaries: string[]
  /** Where to get binaries of one's own instead, for the error when Go is missing. */
  instead: string
  /** Ends the build (with SIGINT, which `go` passes on to its compilers). */
  signal?: AbortSignal
}

const goInstallArgs = (build: Pick<GoBuild, 'packages'>): string[] => ['install', '-trimpath', '-ldflags=-s -w', ...build.packages]

/**
 * The binaries of `build`, built first when the cache lacks one. GOTOOLCHAIN=local: the build
 * never downloads another toolchain; CGO off: no C compiler needed, static binaries.
 */
export async function goInstallCached (build: GoBuild, log: (m: string) => void): Promise<{ paths: string[], source: 'cache' | 'built' }> {
  const paths = build.binaries.map((name) => join(build.dir, name))
  if (paths.every(isExecutable)) return { paths, source: 'cache' }

  // Built into a side folder of this process and renamed at the end: an interrupted build never
  // looks cached, and two processes building at once (CI prepares the cluster's binaries while
  // the tests start) never remove each other's folder; the second to finish keeps the first's.
  const partial = `${build.dir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  log(`Building ${build.what} with ${await goVersion(build)} into ${build.dir} (first time only; minutes) …`)
  const started = Date.now()
  try {
    await run('go', goInstallArgs(build), {
      timeout: 3_600_000,
      maxBuffer: 16 * 1024 * 1024,
      signal: build.signal,
      killSignal: 'SIGINT',
      env: { ...process.env, GOBIN: partial, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' }
    })
  } catch (err) {
    const { stderr } = err as { stderr?: string }
    throw new Error(`Could not build ${build.what} (go ${goInstallArgs(build).join(' ')}): ${(stderr ?? (err as Error).message).trim().split('\n').slice(-5).join('\n')}`)
  }
  if (paths.every(isExecutable)) {
    rmSync(partial, { recursive: true, force: true })
  } else {
    rmSync(build.dir, { recursive: true, force: true })
    renameSync(partial, build.dir)
  }
  log(`Built ${build.what} in ${formatSeconds(Date.now() - started)}`)
  return { paths, source: 'built' }
}

async function goVersion (build: GoBuild): Promise<string> {
  try {
    return (await run('go', ['version'])).stdout.trim().split(' ')[2] ?? 'go'
  } catch {
    throw new Error(`Building ${build.what} needs the Go toolchain (\`go\` on PATH), or ${build.instead}`)
  }
}
