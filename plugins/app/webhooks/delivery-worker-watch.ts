/**
 * The deliveries of declared catalogs wait on DELIVERIES_TASK_QUEUE until Flowport's delivery
 * worker (`flowport deliveries`) polls it: nothing is lost meanwhile, and nothing is delivered
 * either. A start that queues one there while no worker polls says so in the log (a warning at
 * most once a minute), as the delivery's `pending` with no attempt says it in the run's status.
 */
import type { FastifyBaseLogger } from 'fastify'
import { DELIVERIES_TASK_QUEUE } from '@flowport/core/contract'
import { isAlive, workflowQueue, type Engine } from '../engine/index.js'

const EVERY_MS = 60_000

export function deliveryWorkerWatch (engine: Engine, log: FastifyBaseLogger): () => void {
  let lookedAt = -Infinity
  return () => {
    if (Date.now() - lookedAt < EVERY_MS) return
    lookedAt = Date.now()
    // Never holds up the start; a failed look says nothing about the worker.
    void engine.client.workflowService.describeTaskQueue(workflowQueue(engine.namespace, DELIVERIES_TASK_QUEUE)).then(({ pollers }) => {
      if ((pollers ?? []).some((p) => isAlive(p))) return
      log.warn({ taskQueue: DELIVERIES_TASK_QUEUE }, `No delivery worker polls ${DELIVERIES_TASK_QUEUE}: completion webhooks of declared catalogs ` +
        'are kept and wait until one does; start one with `flowport deliveries` (docs/webhooks.md)')
    }, () => {})
  }
}
