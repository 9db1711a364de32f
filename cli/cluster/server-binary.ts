/**
 * The real Temporal server (`go.temporal.io/server`, its cmd/server) and its SQL schema tool, built
 * from the Go module proxy with the machine's Go toolchain into the cache dir beside the cached
 * `temporal` CLI (cli/temporal-binary.ts). The first build takes minutes; every later start finds
 * both binaries in the cache. `TEMPORAL_SERVER_PATH` / `TEMPORAL_SQL_TOOL_PATH` point at binaries of
 * one's own instead (e.g. from the official images).
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { formatSeconds } from '@flowport/core/duration'
import { cacheDir } from '../temporal-binary.js'

const run = promisify(execFile)

/**
 * The server version: the newest release whose go.mod the machine's toolchain (Go 1.26.8)
 * satisfies, and the server line of the cached CLI (1.32), so the dev server and the cluster run
 * the same engine. GOTOOLCHAIN=local: the build never downloads another toolchain.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.0'
const MODULE = 'go.temporal.io/server'

export interface ServerBinaries {
  server: string
  sqlTool: string
  source: 'environment' | 'cache' | 'built'
}

function isExecutable (path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

export const serverBinDir = (): string => join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`)

/** `go install` names each binary after its package folder: `server` and `sql`. */
const inDir = (dir: string): { server: string, sqlTool: string } => ({ server: join(dir, 'server'), sqlTool: join(dir, 'sql') })

/** The arguments of the build; `go install pkg@version` needs no module of one's own. */
export function goInstallArgs (): string[] {
  return ['install', '-trimpath', '-ldflags=-s -w',
    `${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, `${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`]
}

export async function findServerBinaries (log: (m: string) => void = () => {}): Promise<ServerBinaries> {
  const server = process.env.TEMPORAL_SERVER_PATH
  const sqlTool = process.env.TEMPORAL_SQL_TOOL_PATH
  if (server || sqlTool) {
    if (!server || !isExecutable(server)) throw new Error(`TEMPORAL_SERVER_PATH=${server ?? ''} is not an executable file (set it with TEMPORAL_SQL_TOOL_PATH)`)
    if (!sqlTool || !isExecutable(sqlTool)) throw new Error(`TEMPORAL_SQL_TOOL_PATH=${sqlTool ?? ''} is not an executable file (set it with TEMPORAL_SERVER_PATH)`)
    return { server, sqlTool, source: 'environment' }
  }
  const dir = serverBinDir()
  const cached = inDir(dir)
  if (isExecutable(cached.server) && isExecutable(cached.sqlTool)) return { ...cached, source: 'cache' }

  // Built into a side folder and renamed at the end: an interrupted build never looks cached.
  const partial = `${dir}.partial`
  rmSync(partial, { recursive: true, force: true })
  log(`Building Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool with ${await goVersion()} into ${dir} (first time only; several minutes) …`)
  const started = Date.now()
  try {
    await run('go', goInstallArgs(), {
      timeout: 3_600_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, GOBIN: partial, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' }
    })
  } catch (err) {
    const { stderr } = err as { stderr?: string }
    throw new Error(`Could not build Temporal server ${TEMPORAL_SERVER_VERSION} (go ${goInstallArgs().join(' ')}): ${(stderr ?? (err as Error).message).trim().split('\n').slice(-5).join('\n')}`)
  }
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
  renameSync(partial, dir)
  log(`Built in ${formatSeconds(Date.now() - started)}`)
  return { ...inDir(dir), source: 'built' }
}

async function goVersion (): Promise<string> {
  try {
    return (await run('go', ['version'])).stdout.trim().split(' ')[2] ?? 'go'
  } catch {
    throw new Error('Building the Temporal server needs the Go toolchain (`go` on PATH), or TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH')
  }
}
