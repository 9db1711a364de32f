/**
 * The Temporal engine the tests talk to: always a real server (scripts/test.ts starts one and sets
 * TEMPORAL_ADDRESS). Without it the tests fail; they never skip.
 */
import { randomUUID } from 'node:crypto'
import { Client, Connection, type WorkflowHandle } from '@temporalio/client'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import type { Test } from 'tap'
import { catalogWorkflowId } from '@flowport/core/contract'

const address = process.env.TEMPORAL_ADDRESS
if (address === undefined || address === '') {
  throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test` (it starts an engine) or point TEMPORAL_ADDRESS at one')
}
export const TEMPORAL_ADDRESS = address
export const TEMPORAL_NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default'

// The SDK's INFO lines (worker states, expected workflow failures) would bury the test output.
Runtime.install({ logger: new DefaultLogger('ERROR') })

/** A catalog id (= task queue) of its own, so test files can share one engine in parallel. */
export const uniqueCatalog = (label: string): string => `test-${label}-${randomUUID()}`

export async function connectClient (t: Test): Promise<Client> {
  const connection = await Connection.connect({ address: TEMPORAL_ADDRESS })
  t.teardown(async () => { await connection.close() })
  return new Client({ connection, namespace: TEMPORAL_NAMESPACE })
}

type HistoryEvent = Record<string, any>

/** The events of a run's history that carry the given attributes, e.g. 'activityTaskScheduled'. */
export async function eventsOf (handle: WorkflowHandle, kind: string): Promise<HistoryEvent[]> {
  const history = await handle.fetchHistory()
  const key = `${kind}EventAttributes`
  return (history.events ?? []).flatMap((event) => {
    const attributes = (event as HistoryEvent)[key]
    return attributes === undefined || attributes === null ? [] : [attributes as HistoryEvent]
  })
}

/** Activity types scheduled by a run, in order. */
export async function scheduledActivities (handle: WorkflowHandle): Promise<string[]> {
  return (await eventsOf(handle, 'activityTaskScheduled')).map((a) => String(a.activityType?.name))
}

/** Catalog workflows outlive their workers; tests end theirs so the shared engine stays tidy. */
export async function endCatalog (client: Client, catalogId: string): Promise<void> {
  await client.workflow.getHandle(catalogWorkflowId(catalogId)).terminate('test finished').catch(() => {})
}
