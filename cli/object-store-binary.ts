/**
 * The S3-compatible object store of `npm start` and `npm run cluster`: versitygw
 * (github.com/versity/versitygw, Apache-2.0), a real S3 gateway whose `posix` backend keeps each
 * object as a file, built from the Go module proxy like the cluster's Temporal server
 * (cli/go-install.ts). Why this one and not MinIO or moto: docs/large-payloads.md ("The store of
 * `npm start` and `npm run cluster`"). `VERSITYGW_PATH` points at a binary of one's own instead
 * (e.g. from the project's release page).
 */
import { delimiter, join } from 'node:path'
import { cacheDir, isExecutable } from './temporal-binary.js'
import { goInstallCached } from './go-install.js'

/** The release deploy/docker-compose.yml and deploy/kubernetes/flowport.yaml pin as the `versity/versitygw` image. */
export const VERSITYGW_VERSION = '1.8.0'

const cachedDir = (): string => join(cacheDir(), `versitygw-${VERSITYGW_VERSION}`)

/**
 * How the binary will be had, known at once (no build, no download): 'ready' (VERSITYGW_PATH or
 * the cache), 'build' (the Go toolchain is on PATH: minutes the first time), or why it cannot be.
 */
export function objectStoreBinaryPlan (): 'ready' | 'build' | { missing: string } {
  const own = process.env.VERSITYGW_PATH
  if (own !== undefined && own !== '') return isExecutable(own) ? 'ready' : { missing: `VERSITYGW_PATH=${own} is not an executable file` }
  if (isExecutable(join(cachedDir(), 'versitygw'))) return 'ready'
  const go = (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && isExecutable(join(dir, 'go')))
  return go ? 'build' : { missing: 'building versitygw needs the Go toolchain (`go` on PATH), or VERSITYGW_PATH' }
}

export async function findObjectStoreBinary (log: (m: string) => void = () => {}, signal?: AbortSignal): Promise<{ path: string, source: 'environment' | 'cache' | 'built' }> {
  const own = process.env.VERSITYGW_PATH
  if (own !== undefined && own !== '') {
    if (!isExecutable(own)) throw new Error(`VERSITYGW_PATH=${own} is not an executable file`)
    return { path: own, source: 'environment' }
  }
  const { paths: [path], source } = await goInstallCached({
    what: `versitygw ${VERSITYGW_VERSION} (the S3-compatible object store)`,
    dir: cachedDir(),
    signal,
    packages: [`github.com/versity/versitygw/cmd/versitygw@v${VERSITYGW_VERSION}`],
    binaries: ['versitygw'],
    instead: 'VERSITYGW_PATH'
  }, log)
  return { path, source }
}
