/**
 * Worker concurrency. Defaults follow Temporal's own where it has fixed ones; the cache size is
 * fixed (Temporal derives it from the heap size) so that a worker behaves the same on any machine.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export const EngineOptionsSchema = Type.Object({
  maxConcurrentActivityTaskExecutions: Type.Integer({ minimum: 1, default: 100 }),
  maxConcurrentWorkflowTaskExecutions: Type.Integer({ minimum: 2, default: 40 }),
  maxCachedWorkflows: Type.Integer({ minimum: 0, default: 1000 }),
  maxConcurrentActivityTaskPolls: Type.Integer({ minimum: 1, default: 10 }),
  maxConcurrentWorkflowTaskPolls: Type.Integer({ minimum: 2, default: 10 }),
  /** Webhook POSTs at once, on the catalog's delivery queue (webhookDeliveryQueue), apart from the steps' slots. */
  maxConcurrentWebhookDeliveries: Type.Integer({ minimum: 1, default: 20 }),
  /** Of those, POSTs to one receiver (origin) at once: a receiver that hangs leaves the others slots (worker/src/webhook/receiver-cap.ts). */
  maxWebhookDeliveriesPerReceiver: Type.Integer({ minimum: 1, default: 10 })
}, { additionalProperties: false })

export type EngineOptions = Static<typeof EngineOptionsSchema>

/** Defaults filled in and the options checked; throws a message naming the bad option. */
export function resolveEngineOptions (options: Partial<EngineOptions> = {}): EngineOptions {
  const engine = Value.Default(EngineOptionsSchema, { ...options }) as EngineOptions
  const first = Value.Errors(EngineOptionsSchema, engine).First()
  if (first !== undefined) throw new RangeError(`Invalid engine option ${first.path.slice(1)}: ${first.message}`)
  if (engine.maxConcurrentWorkflowTaskPolls > engine.maxConcurrentWorkflowTaskExecutions) {
    throw new RangeError('Invalid engine option maxConcurrentWorkflowTaskPolls: must not exceed maxConcurrentWorkflowTaskExecutions')
  }
  if (engine.maxConcurrentActivityTaskPolls > engine.maxConcurrentActivityTaskExecutions) {
    throw new RangeError('Invalid engine option maxConcurrentActivityTaskPolls: must not exceed maxConcurrentActivityTaskExecutions')
  }
  return engine
}
