/**
 * Shared by the example tests: the engine (TEMPORAL_ADDRESS, required: the tests fail without it)
 * and a worker started from the repository root, which finds the examples through node_modules.
 */
import { randomUUID } from 'node:crypto'
import { Client, Connection, type WorkflowHandle } from '@temporalio/client'
import { DefaultLogger, Runtime } from '@temporalio/worker'

export { quietLogger, REPOSITORY_ROOT } from './paths.js'

const address = process.env.TEMPORAL_ADDRESS
if (address === undefined || address === '') {
  throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test` (it starts an engine) or point TEMPORAL_ADDRESS at one')
}
export const TEMPORAL_ADDRESS = address
export const TEMPORAL_NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default'

// Expected workflow failures would otherwise print their stacks.
Runtime.install({ logger: new DefaultLogger('ERROR') })

export const uniqueCatalog = (label: string): string => `test-${label}-${randomUUID()}`

export async function connect (): Promise<{ client: Client, close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: TEMPORAL_ADDRESS })
  return { client: new Client({ connection, namespace: TEMPORAL_NAMESPACE }), close: async () => { await connection.close() } }
}

type Attributes = Record<string, any>

/** The attributes of the history events of one kind, e.g. 'activityTaskScheduled'. */
export async function eventsOf (handle: WorkflowHandle, kind: string): Promise<Attributes[]> {
  const history = await handle.fetchHistory()
  return (history.events ?? []).flatMap((event) => {
    const attributes = (event as Attributes)[`${kind}EventAttributes`]
    return attributes === undefined || attributes === null ? [] : [attributes as Attributes]
  })
}
