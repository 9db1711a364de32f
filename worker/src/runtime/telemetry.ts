/**
 * The worker process's metrics endpoint: the Temporal runtime's Prometheus exporter (the SDK's
 * own worker metrics: task slots, poll latency, sticky cache, workflow completions per type and
 * status, activity latencies) plus Flowport's per-step metrics (step-metrics.ts), on one port.
 * Must run before the first connection is made: the runtime is process-wide and installed once.
 * @see https://typescript.temporal.io/api/interfaces/worker.TelemetryOptions
 */
import { Runtime } from '@temporalio/worker'

export function installMetrics (port: number, host = '0.0.0.0'): void {
  Runtime.install({
    telemetryOptions: {
      metrics: {
        prometheus: {
          bindAddress: `${host.includes(':') ? `[${host}]` : host}:${port}`,
          // Prometheus conventions: counters end in _total, durations are in seconds.
          countersTotalSuffix: true,
          useSecondsForDurations: true
        }
      }
    }
  })
}
