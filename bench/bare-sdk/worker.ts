/** A worker with the SDK's defaults for the bare workflows (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE). */
import { fileURLToPath } from 'node:url'
import { NativeConnection, Worker } from '@temporalio/worker'
import * as activities from './activities.js'

const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS })
const worker = await Worker.create({
  connection,
  namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  taskQueue: process.env.TASK_QUEUE ?? 'bare-sdk',
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities
})
process.once('SIGTERM', () => { worker.shutdown() })
await worker.run()
await connection.close()
