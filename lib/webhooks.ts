/**
 * Completion webhooks (docs/webhooks.md), the API's part: check the URL before anything starts,
 * start the delivery workflow on the engine (worker/src/workflow/webhook.ts) for a started run,
 * and read where a delivery stands for the status endpoint. The delivery itself never depends on
 * an API process: it runs on the catalog's workers.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import {
  WEBHOOK_DELIVERY_MEMO_KEY, WEBHOOK_RUN_MEMO_KEY, WEBHOOK_WORKFLOW_TYPE, type DeliveryRecord, type WebhookDeliveryInput
} from '@flowport/worker/contract'
import { refusalOf } from '@flowport/worker/webhook-address'
import type { WebhookDelivery, WebhookRequest } from '../schemas/workflow.js'
import { isProduction } from '../schemas/config.js'
import { ApiError, validationError } from './api-error.js'
import { RESERVED_ID_PREFIX } from './execution.js'

/** A checked webhook: where to, and the secret to sign with. */
export interface WebhookTarget { url: string, secret: string }

const refused = (message: string) => validationError([{ path: '/webhook/url', in: 'body', message }])

/** Whether `host` is one of the allowed hosts: an exact name, or `*.example.com` for its subdomains. */
function hostAllowed (host: string, allowed: string): boolean {
  return allowed.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '').some((pattern) =>
    pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern)
}

/** The webhook of a start request, checked (400 before anything starts), or undefined when none was asked for. */
export function webhookTarget (fastify: FastifyInstance, webhook: WebhookRequest | undefined): WebhookTarget | undefined {
  if (webhook === undefined) return undefined
  const config = fastify.config
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
  const refusal = refusalOf(host, addressPolicy(fastify))
  if (refusal !== undefined) throw refused(refusal)
  const secret = webhook.secret ?? config.SERVICE_WEBHOOK_SECRET
  if (secret === undefined) throw validationError([{ path: '/webhook/secret', in: 'body', message: 'is required when SERVICE_WEBHOOK_SECRET is not set' }])
  return { url: url.href, secret }
}

function addressPolicy (fastify: FastifyInstance) {
  const config = fastify.config
  return {
    allowLoopback: config.SERVICE_WEBHOOK_ALLOW_LOOPBACK ?? !isProduction(config.NODE_ENV),
    allowLinkLocal: config.SERVICE_WEBHOOK_ALLOW_LINK_LOCAL
  }
}

/** The delivery workflow's id: reserved (the API never shows its history, which holds the secret), one per run. */
export function deliveryWorkflowId (workflowId: string, runId: string): string {
  return `${RESERVED_ID_PREFIX}_webhook:${createHash('sha256').update(`${workflowId}\0${runId}`).digest('base64url')}`
}

/** Memo of a run started with a webhook: the URL only, so a status read knows there is a delivery to report. */
export const webhookRunMemo = (target: WebhookTarget) => ({ [WEBHOOK_RUN_MEMO_KEY]: { url: target.url } })

const PENDING: DeliveryRecord = { state: 'pending', attempts: 0, lastResponseStatus: null, lastError: null, deliveredAt: null }

/**
 * Starts the delivery of a started run's completion; a delivery already started for that run
 * (a retry with an Idempotency-Key) is left alone, so the run's webhook is delivered once.
 */
export async function startDelivery (fastify: FastifyInstance, run: { workflowId: string, runId: string, catalog: string }, target: WebhookTarget, signal?: AbortSignal): Promise<void> {
  const id = deliveryWorkflowId(run.workflowId, run.runId)
  const input: WebhookDeliveryInput = {
    workflowId: run.workflowId,
    runId: run.runId,
    url: target.url,
    secret: target.secret,
    // The same `webhook-id` on every attempt: receivers deduplicate by it.
    messageId: `msg_${id.slice(id.indexOf(':') + 1)}`,
    retryForMs: fastify.config.SERVICE_WEBHOOK_RETRY_FOR_MS,
    ...addressPolicy(fastify)
  }
  try {
    await fastify.engineCall(() => fastify.temporal.workflow.start(WEBHOOK_WORKFLOW_TYPE, {
      workflowId: id,
      taskQueue: run.catalog,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      memo: { [WEBHOOK_DELIVERY_MEMO_KEY]: PENDING }
    }), { signal, workflowId: run.workflowId, runId: run.runId })
  } catch (err) {
    // A delivery that has already finished for this run.
    if (err instanceof ApiError && err.error === 'WorkflowAlreadyStartedError') return
    throw err
  }
}

/** Where the delivery of a run's webhook stands (the memo its workflow keeps current); `url` is the run's memo's. */
export async function readDelivery (fastify: FastifyInstance, run: { workflowId: string, runId: string }, url: string, signal?: AbortSignal): Promise<WebhookDelivery> {
  const id = deliveryWorkflowId(run.workflowId, run.runId)
  const described = await fastify.engineCall(() => fastify.temporal.workflow.getHandle(id).describe(), { signal, ...run })
    .catch((err: unknown) => { if (err instanceof ApiError && err.statusCode === 404) return undefined; throw err })
  const record = (described?.memo?.[WEBHOOK_DELIVERY_MEMO_KEY] as DeliveryRecord | undefined) ?? PENDING
  return { url, ...record }
}
