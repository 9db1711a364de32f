/**
 * Helpers of the completion-webhook tests (docs/webhooks.md): a real HTTP receiver, secrets, the
 * Standard Webhooks check of a delivery, and the delivery workflow a run's memo names.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { WEBHOOK_RUN_MEMO_KEY, type WebhookRunMemo } from '@flowport/core/contract'
import type { App } from '../../app.js'
import { deliveryOfRun } from '../../plugins/app/webhooks/webhooks.js'

export interface Delivery { headers: IncomingHttpHeaders, body: string }

/** A receiver: answers each request on a path with the next status of its script (then 200), and records it. */
export async function receiver (t: Test) {
  const received = new Map<string, Delivery[]>()
  const scripts = new Map<string, number[]>()
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => { body += chunk })
    req.on('end', () => {
      const path = req.url ?? '/'
      received.set(path, [...(received.get(path) ?? []), { headers: req.headers, body }])
      res.statusCode = scripts.get(path)?.shift() ?? 200
      res.end()
      for (const wake of waiters.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => { resolve() })))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: (path: string, script: number[] = []) => { scripts.set(path, script); return `${base}${path}` },
    received: (path: string) => received.get(path) ?? [],
    /** Resolves once `path` has received `count` requests (the test's own timeout bounds the wait). */
    async until (path: string, count: number): Promise<Delivery[]> {
      while ((received.get(path) ?? []).length < count) await new Promise<void>((resolve) => waiters.push(resolve))
      return received.get(path) ?? []
    }
  }
}

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/** The id of the delivery workflow the run's memo names. */
export async function deliveryIdOf (app: App, run: { workflowId: string, runId: string }) {
  const { memo } = await app.engine.client.workflow.getHandle(run.workflowId, run.runId).describe()
  return deliveryOfRun(run, memo?.[WEBHOOK_RUN_MEMO_KEY] as WebhookRunMemo)
}

/** Waits for the delivery workflow to finish, so "delivered once" also covers the retries that could have followed. */
export async function deliveryDone (app: App, run: { workflowId: string, runId: string }) {
  return await app.engine.client.workflow.getHandle(await deliveryIdOf(app, run)).result()
}

/** Checks the delivery's signature with `secret` and returns its body. */
export function verified (t: Test, secret: string, delivery: Delivery) {
  const payload = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as Record<string, unknown>
  t.match(delivery.headers['webhook-id'], /^msg_/)
  t.match(delivery.headers['webhook-signature'], /^v1,/)
  return payload
}
