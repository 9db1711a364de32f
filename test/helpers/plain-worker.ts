/**
 * A worker of Temporal's TypeScript SDK alone, nothing of Flowport's, in the test's own process
 * (test/foreign-history, test/declared-names): it polls `taskQueue` until the test ends.
 */
import type { Test } from 'tap'
import { fileURLToPath } from 'node:url'
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString, DefaultLogger } from '@temporalio/worker'
import { engineAddress } from './env.js'

export async function startPlainWorker (t: Test, taskQueue: string, workflowsPath: URL, activities: object): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } })
  const connection = await NativeConnection.connect({ address: engineAddress() })
  const worker = await Worker.create({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', taskQueue, workflowsPath: fileURLToPath(workflowsPath), activities })
  const running = worker.run()
  t.teardown(async () => {
    worker.shutdown()
    await running
    await connection.close()
  })
}
