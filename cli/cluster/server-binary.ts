/**
 * The real Temporal server (`go.temporal.io/server`, its cmd/server) and its SQL schema tool, built
 * from the Go module proxy (cli/go-install.ts) into the cache dir beside the cached `temporal` CLI
 * (cli/temporal-binary.ts). `TEMPORAL_SERVER_PATH` / `TEMPORAL_SQL_TOOL_PATH` point at binaries of
 * one's own instead (e.g. from the official images).
 */
import { join } from 'node:path'
import { cacheDir, isExecutable } from '../temporal-binary.js'
import { goInstallCached } from '../go-install.js'

/**
 * The server version: the newest release whose go.mod the machine's toolchain (Go 1.26.8)
 * satisfies, and the server line of the cached CLI (1.32), so the dev server and the cluster run
 * the same engine.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.0'
const MODULE = 'go.temporal.io/server'

export interface ServerBinaries {
  server: string
  sqlTool: string
  source: 'environment' | 'cache' | 'built'
}

export async function findServerBinaries (log: (m: string) => void = () => {}): Promise<ServerBinaries> {
  const server = process.env.TEMPORAL_SERVER_PATH
  const sqlTool = process.env.TEMPORAL_SQL_TOOL_PATH
  if (server || sqlTool) {
    if (!server || !isExecutable(server)) throw new Error(`TEMPORAL_SERVER_PATH=${server ?? ''} is not an executable file (set it with TEMPORAL_SQL_TOOL_PATH)`)
    if (!sqlTool || !isExecutable(sqlTool)) throw new Error(`TEMPORAL_SQL_TOOL_PATH=${sqlTool ?? ''} is not an executable file (set it with TEMPORAL_SERVER_PATH)`)
    return { server, sqlTool, source: 'environment' }
  }
  const { paths: [built, sql], source } = await goInstallCached({
    what: `Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool`,
    dir: join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`),
    packages: [`${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`, `${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`],
    // `go install` names each binary after its package folder.
    binaries: ['server', 'sql'],
    instead: 'TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH'
  }, log)
  return { server: built, sqlTool: sql, source }
}
