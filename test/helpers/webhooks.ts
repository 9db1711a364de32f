/**
 * Helpers of the completion-webhook tests (docs/webhooks.md): a real HTTP receiver (which can also
 * hang), secrets, the Standard Webhooks check of a delivery, the delivery workflow a run's memo
 * names, and a worker of a test's own.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import { resolve as resolvePath } from 'node:path'
import type { Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { WEBHOOK_RUN_MEMO_KEY, type WebhookRunMemo } from '@flowport/core/contract'
import type { App } from '../../app.js'
import { deliveryOfRun } from '../../plugins/app/webhooks/webhooks.js'
import { spawnWorker } from './worker-process.js'
import { waitClosed } from './workflows.js'

/**
 * How a receiver hangs on a path until told to behave: `trickle` sends its answer one byte every
 * 2 s, from the status line on, and never finishes it; `endless` answers 200 at once with a body
 * that never ends (16 KiB every 50 ms).
 */
export type Hang = 'trickle' | 'endless'

/** A request the receiver got, and what it answered: a status, or how it hung. */
export interface Delivery { headers: IncomingHttpHeaders, body: string, answer: number | Hang }

const TRICKLED = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nx-trickle: ' + '.'.repeat(10_000)

/**
 * A receiver: answers each request on a path with the next status of its script (then 200), or
 * hangs while the path is set to, and records it.
 */
export async function receiver (t: Test) {
  const received = new Map<string, Delivery[]>()
  const scripts = new Map<string, number[]>()
  const hangs = new Map<string, Hang>()
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => { body += chunk })
    req.on('end', () => {
      const path = req.url ?? '/'
      const hang = hangs.get(path)
      const answer = hang ?? scripts.get(path)?.shift() ?? 200
      received.set(path, [...(received.get(path) ?? []), { headers: req.headers, body, answer }])
      if (hang === 'trickle') {
        let sent = 0
        const timer = setInterval(() => { req.socket.write(TRICKLED[sent++ % TRICKLED.length]) }, 2000)
        req.socket.on('close', () => { clearInterval(timer) })
      } else if (hang === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        const timer = setInterval(() => { res.write(Buffer.alloc(16 * 1024, '.')) }, 50)
        res.on('close', () => { clearInterval(timer) })
      } else {
        res.statusCode = answer as number
        res.end()
      }
      for (const wake of waiters.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    server.close(() => { resolve() })
    server.closeAllConnections()
  }))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: (path: string, script: number[] = []) => { scripts.set(path, script); return `${base}${path}` },
    /** Makes `path` hang on every request from now on, until `behave`. */
    hang: (path: string, how: Hang) => { hangs.set(path, how); return `${base}${path}` },
    /** `path` answers again (its script, then 200). */
    behave: (path: string) => { hangs.delete(path) },
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

/** A worker of the test's own serving the test workflows on `catalog`; resolves once it polls. */
export async function catalogWorker (t: Test, catalog: string, env: Record<string, string> = {}) {
  const started = spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolvePath('test/fixtures/workflows'), ...env }, process.cwd())
  await started.waitFor(`Worker polling catalog ${catalog}`)
  return started
}

/** The run's final status, or 'still open' once `ms` have passed: a guard against a hang, not a measure of speed. */
export async function closedWithin (app: App, workflowId: string, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const guard = new Promise<string>((resolve) => { timer = setTimeout(() => { resolve('still open') }, ms) })
  try {
    return await Promise.race([waitClosed(app, workflowId), guard])
  } finally {
    clearTimeout(timer)
  }
}
