/**
 * The delivery worker (`flowport deliveries`; docs/webhooks.md, "Declared catalogs: the delivery
 * worker"): the completion-webhook delivery workflow and its activities, and nothing else, on
 * DELIVERIES_TASK_QUEUE, for the runs of catalogs declared in a file, whose workers know no delivery workflow.
 */
import { DELIVERIES_TASK_QUEUE, WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY } from '@flowport/core/contract'
import { consoleLogger } from '../common/logger.js'
import { webhookActivities } from '../webhook/activities.js'
import { bundleWorkflows } from './bundle.js'
import { resolveEngineOptions } from './engine.js'
import { stepLogs } from './step-logs.js'
import type { Starter } from './keep-polling.js'
import { connectEngine, createWorkerPair, isPolling, runWorkerPair, type PreparedWorker, type WorkerHandle, type WorkerOptions, type Workers } from './start-worker.js'

export type DeliveryWorkerOptions = Omit<WorkerOptions, 'catalogId' | 'workflowsDir' | 'packagesFrom'>

/** Its bundle: Flowport's own workflows only (the generated entry with no workflow of a catalog). */
export async function prepareDeliveryWorker (options: DeliveryWorkerOptions): Promise<Pick<PreparedWorker, 'workflowBundle' | 'engine'>> {
  const logger = options.logger ?? consoleLogger
  const engine = resolveEngineOptions(options.engine)
  const workflowBundle = await bundleWorkflows({ registry: { workflows: [], shared: new Map() }, manifest: { workflows: {}, activities: {} }, logger, reuse: options.reuseBundle })
  return { workflowBundle, engine }
}

/** Polls both queues; resolves once both Workers run. */
export async function startDeliveryWorker (prepared: Pick<PreparedWorker, 'workflowBundle' | 'engine'>, options: DeliveryWorkerOptions): Promise<Omit<WorkerHandle, 'catalog' | 'version'>> {
  const logger = options.logger ?? consoleLogger
  const engine = await connectEngine(options)
  // No trace file is written for a declared catalog's run (its trace is built from the history): the body's `trace` is null, as GET …/result's.
  const webhooks = webhookActivities({ client: engine.client, store: null, maxPerReceiver: prepared.engine.maxWebhookDeliveriesPerReceiver })
  let workers: Workers
  try {
    workers = await createWorkerPair(engine, options, prepared.engine, [stepLogs(logger)], webhooks[WEBHOOK_DELIVER_ACTIVITY], {
      taskQueue: DELIVERIES_TASK_QUEUE,
      workflowBundle: prepared.workflowBundle,
      activities: { [WEBHOOK_AWAIT_ACTIVITY]: webhooks[WEBHOOK_AWAIT_ACTIVITY] }
    })
  } catch (err) {
    await engine.close()
    throw err
  }
  const { done, shutdown } = runWorkerPair(workers, engine.close)
  logger.info(`Delivery worker polling ${DELIVERIES_TASK_QUEUE}: completion webhooks of declared catalogs`)
  return { shutdown, done, isPolling: async () => await isPolling(workers, engine.connection) }
}

/** For keepPolling: `flowport deliveries`. */
export const deliveryWorker = (options: DeliveryWorkerOptions): Starter => async () => {
  const prepared = await prepareDeliveryWorker(options)
  return async () => await startDeliveryWorker(prepared, options)
}
