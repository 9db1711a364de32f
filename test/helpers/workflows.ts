/**
 * Helpers of the execution-endpoint tests: requests whose responses are checked against the
 * committed OpenAPI document, and starts/waits on the example workflows.
 */
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import type { App } from '../../app.js'
import { assertContract } from './contract.js'

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  url: string
  /** OpenAPI path template the URL belongs to, e.g. `/workflow/{id}/status`. */
  route: string
  payload?: unknown
  headers?: Record<string, string>
}

/** Injects a request and checks its response against openapi.json; returns status and parsed body. */
export async function call (t: Test, app: App, { method, url, route, payload, headers }: Call) {
  const res = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
  assertContract(t, method, route, res)
  const body = res.body === '' ? undefined : res.json()
  return { status: res.statusCode, body, headers: res.headers }
}

export const newId = (prefix: string) => `${prefix}-${randomUUID()}`

export async function start (t: Test, app: App, workflowName: string, input: unknown, workflowId = newId(workflowName)) {
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName, input, workflowId } })
  t.equal(res.status, 200, `started ${workflowName}`)
  return res.body as { workflowId: string, runId: string }
}

/** Waits for a run to close by asking the engine itself (no sleeping loop), then returns its status. */
export async function waitClosed (app: App, workflowId: string, runId?: string): Promise<string> {
  const handle = app.engine.client.workflow.getHandle(workflowId, runId)
  await handle.result().catch(() => undefined)
  return (await handle.describe()).status.name
}

/**
 * Waits until a run has completed its first workflow task: a reset `from: 'start'` needs one, and on
 * a loaded machine the worker may not have taken the task yet when the start answers. Returns
 * whether it did.
 */
export async function firstTaskCompleted (app: App, workflowId: string, runId?: string): Promise<boolean> {
  const completed = (h: { events?: Array<{ workflowTaskCompletedEventAttributes?: unknown }> | null }) =>
    (h.events ?? []).some((e) => e.workflowTaskCompletedEventAttributes)
  return completed(await eventually(() => app.engine.client.workflow.getHandle(workflowId, runId).fetchHistory(), completed))
}

/** Polls an eventually-consistent read (the visibility list) a bounded number of times. */
export async function eventually<T> (read: () => Promise<T>, done: (value: T) => boolean, attempts = 60): Promise<T> {
  let value = await read()
  for (let i = 1; i < attempts && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    value = await read()
  }
  return value
}
