/**
 * Per-step metrics (docs/observability.md lists them), recorded through the Temporal runtime's own
 * meter so they leave by the SDK's Prometheus endpoint (telemetry.ts). A webhook delivery's looks at
 * the run it waits for do not count: they are no step, and each look at an open run ends as a
 * (benign) failure (docs/webhooks.md).
 */
import { Runtime, type ActivityInterceptorsFactory } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { WEBHOOK_AWAIT_ACTIVITY } from '@flowport/core/contract'

export function stepMetrics (): ActivityInterceptorsFactory {
  // Created once per worker: the meter is the runtime's, the labels are given per recording.
  const meter = Runtime.instance().metricMeter
  const executions = meter.createCounter('flowport_step_executions', '', 'Step attempts that ended, by activity type and outcome (completed, failed, canceled)')
  const retries = meter.createCounter('flowport_step_retries', '', 'Step attempts after the first (attempt > 1), by activity type')
  const duration = meter.createHistogram('flowport_step_duration', 'float', 's', 'Time one step attempt ran, by activity type and outcome')
  return (ctx) => ({
    inbound: {
      async execute (input, next) {
        const { activityType, taskQueue, attempt } = ctx.info
        if (activityType === WEBHOOK_AWAIT_ACTIVITY) return await next(input)
        const tags = { activity_type: activityType, task_queue: taskQueue }
        if (attempt > 1) retries.add(1, tags)
        const started = performance.now()
        let outcome = 'completed'
        try {
          return await next(input)
        } catch (err) {
          outcome = err instanceof CancelledFailure ? 'canceled' : 'failed'
          throw err
        } finally {
          executions.add(1, { ...tags, outcome })
          duration.record((performance.now() - started) / 1000, { ...tags, outcome })
        }
      }
    }
  })
}
