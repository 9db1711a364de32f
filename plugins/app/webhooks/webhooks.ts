/**
 * Completion webhooks, the API's part (docs/webhooks.md). The delivery workflow
 * (worker/src/workflow/webhook.ts) runs on the catalog's workers (a declared catalog's: on
 * Flowport's delivery worker), never on an API process, and is started before the run whose memo
 * names it: no run with a webhook exists without its delivery.
 */
import { createHash, randomUUID } from 'node:crypto'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import {
  DELIVERIES_TASK_QUEUE, WEBHOOK_DELIVERY_MEMO_KEY, WEBHOOK_RUN_MEMO_KEY, WEBHOOK_WORKFLOW_TYPE, type DeliveryRecord, type WebhookDeliveryInput, type WebhookRunMemo
} from '@flowport/core/contract'
import { refusalOf } from '@flowport/core/webhook-address'
import type { WebhookDelivery, WebhookRequest } from '../../../schemas/workflow.js'
import type { Config } from '../../../schemas/config.js'
import { isProduction } from '@flowport/core/settings'
import { ApiError, ifNotFound, validationError } from '../../../lib/api-error.js'
import type { Engine } from '../engine/index.js'
import type { FastifyBaseLogger } from 'fastify'
import { deliveryWorkerWatch } from './delivery-worker-watch.js'

export interface WebhookTarget { url: string, secret: string }

const refused = (message: string) => validationError([{ path: '/webhook/url', in: 'body', message }])

function hostAllowed (host: string, allowed: string): boolean {
  return allowed.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '').some((pattern) =>
    pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern)
}

export type WebhooksConfig = Pick<Config, 'NODE_ENV' | 'SERVICE_WEBHOOK_ALLOWED_HOSTS' | 'SERVICE_WEBHOOK_ALLOW_LOOPBACK' |
  'SERVICE_WEBHOOK_ALLOW_LINK_LOCAL' | 'SERVICE_WEBHOOK_SECRET' | 'SERVICE_WEBHOOK_RETRY_FOR_MS'>

function webhookTarget (config: WebhooksConfig, webhook: WebhookRequest | undefined): WebhookTarget | undefined {
  if (webhook === undefined) return undefined
  let url: URL
  try {
    url = new URL(webhook.url)
  } catch {
    throw refused('must be an absolute http or https URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('must be an http or https URL')
  if (url.username !== '' || url.password !== '') throw refused('must not carry credentials (sign with the secret instead)')
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (config.SERVICE_WEBHOOK_ALLOWED_HOSTS !== undefined && !hostAllowed(host, config.SERVICE_WEBHOOK_ALLOWED_HOSTS)) {
    throw refused(`host ${host} is not in SERVICE_WEBHOOK_ALLOWED_HOSTS`)
  }
  const refusal = refusalOf(host, addressPolicy(config))
  if (refusal !== undefined) throw refused(refusal)
  const secret = webhook.secret ?? config.SERVICE_WEBHOOK_SECRET
  if (secret === undefined) throw validationError([{ path: '/webhook/secret', in: 'body', message: 'is required when SERVICE_WEBHOOK_SECRET is not set' }])
  return { url: url.href, secret }
}

function addressPolicy (config: WebhooksConfig) {
  return {
    allowLoopback: config.SERVICE_WEBHOOK_ALLOW_LOOPBACK ?? !isProduction(config.NODE_ENV),
    allowLinkLocal: config.SERVICE_WEBHOOK_ALLOW_LINK_LOCAL
  }
}

const reservedDeliveryId = (name: string) => `${WEBHOOK_WORKFLOW_TYPE}:${createHash('sha256').update(name).digest('base64url')}`

/**
 * Reserved: the API never shows its history, which holds the secret. Requests with one
 * Idempotency-Key share one (they start one run); any other request gets its own.
 */
export function deliveryWorkflowId (workflowId: string, idempotencyKey?: string): string {
  return reservedDeliveryId(idempotencyKey === undefined ? `${workflowId}\0${randomUUID()}` : `${workflowId}\0key\0${idempotencyKey}`)
}

/** The one the run's memo names; runs from before deliveries were started first used an id of workflow and run id. */
export function deliveryOfRun (run: { workflowId: string, runId: string }, memo: WebhookRunMemo): string {
  return memo.delivery ?? reservedDeliveryId(`${run.workflowId}\0${run.runId}`)
}

/** Never the secret. */
export const webhookRunMemo = (target: WebhookTarget, deliveryId: string): Record<string, WebhookRunMemo> =>
  ({ [WEBHOOK_RUN_MEMO_KEY]: { url: target.url, delivery: deliveryId } })

const PENDING: DeliveryRecord = { state: 'pending', attempts: 0, lastResponseStatus: null, lastError: null, deliveredAt: null }

export interface DeliveryStart {
  id: string
  workflowId: string
  catalog: string
  /** Where the delivery workflow runs; default: the catalog's task queue. */
  taskQueue?: string
  /** The body's name for the run (a declared workflow's `name`); default: its Temporal type. */
  workflowName?: string
  /** Default: the worker's, 10 minutes. */
  runStartWithinMs?: number
}

export type Webhooks = ReturnType<typeof createWebhooks>

export function createWebhooks ({ engine, config, log }: { engine: Engine, config: WebhooksConfig, log?: FastifyBaseLogger }) {
  const watch = log === undefined ? () => {} : deliveryWorkerWatch(engine, log)
  return {
    /** 400 before anything starts; undefined when none was asked for. */
    target: (webhook: WebhookRequest | undefined) => webhookTarget(config, webhook),
    /**
     * The delivery waits for its run. One already started under that id (an Idempotency-Key retry)
     * is left alone; one whose run never came may be started again.
     */
    async startDelivery (delivery: DeliveryStart, target: WebhookTarget, signal?: AbortSignal): Promise<void> {
      const { id, workflowId } = delivery
      const input: WebhookDeliveryInput = {
        workflowId,
        runStartWithinMs: delivery.runStartWithinMs,
        url: target.url,
        secret: target.secret,
        // The same `webhook-id` on every attempt: receivers deduplicate by it.
        messageId: `msg_${id.slice(id.indexOf(':') + 1)}`,
        retryForMs: config.SERVICE_WEBHOOK_RETRY_FOR_MS,
        ...(delivery.workflowName !== undefined && { workflowName: delivery.workflowName }),
        ...addressPolicy(config)
      }
      try {
        await engine.call(() => engine.client.workflow.start(WEBHOOK_WORKFLOW_TYPE, {
          workflowId: id,
          taskQueue: delivery.taskQueue ?? delivery.catalog,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          memo: { [WEBHOOK_DELIVERY_MEMO_KEY]: PENDING }
        }), { signal, workflowId })
        if (delivery.taskQueue === DELIVERIES_TASK_QUEUE) watch()
      } catch (err) {
        // A delivery that has already finished for this request's run.
        if (err instanceof ApiError && err.error === 'WorkflowAlreadyStartedError') return
        throw err
      }
    },
    /** Best effort: no run will name it, so it need not wait for its run. */
    async abandonDelivery (id: string): Promise<void> {
      await engine.client.workflow.getHandle(id).terminate('the run was not started').catch(() => undefined)
    },
    /** The memo its workflow keeps current; `memo` is the run's. */
    async readDelivery (run: { workflowId: string, runId: string }, memo: WebhookRunMemo, signal?: AbortSignal): Promise<WebhookDelivery> {
      const id = deliveryOfRun(run, memo)
      const { url } = memo
      const described = await engine.call(() => engine.client.workflow.getHandle(id).describe(), { signal, ...run })
        .catch(ifNotFound(undefined))
      const record = (described?.memo?.[WEBHOOK_DELIVERY_MEMO_KEY] as DeliveryRecord | undefined) ?? PENDING
      return { url, ...record }
    }
  }
}
