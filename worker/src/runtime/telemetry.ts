/**
 * The process-wide Temporal runtime, installed once, before the first connection is made:
 * - the SDK's own log lines (a worker's state changes, the workflow and activity context loggers,
 *   and the native core's warnings, forwarded) go through the worker's logger, so that they follow
 *   LOG_LEVEL and come out as JSON in production like every other line (the SDK's default logger
 *   prints readable lines at info and above whatever the settings say);
 * - with a metrics port, the runtime's Prometheus exporter (the SDK's own worker metrics: task
 *   slots, poll latency, sticky cache, workflow completions per type and status, activity
 *   latencies) plus Flowport's per-step metrics (step-metrics.ts), on one port.
 * @see https://typescript.temporal.io/api/interfaces/worker.TelemetryOptions
 */
import { Runtime, type Logger as SdkLogger, type LogLevel as SdkLogLevel, type LogMetadata } from '@temporalio/worker'
import type { Logger } from '../common/logger.js'

export interface RuntimeOptions {
  /** Serve the Prometheus exporter on this port. */
  metricsPort?: number
  host?: string
}

export function installRuntime (logger: Logger, { metricsPort, host = '0.0.0.0' }: RuntimeOptions = {}): void {
  Runtime.install({
    logger: sdkLogger(logger),
    telemetryOptions: {
      // The SDK's default filter, forwarded to the logger above instead of printed by the core.
      logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } },
      ...(metricsPort === undefined
        ? {}
        : {
            metrics: {
              prometheus: {
                bindAddress: `${host.includes(':') ? `[${host}]` : host}:${metricsPort}`,
                // Prometheus conventions: counters end in _total, durations are in seconds.
                countersTotalSuffix: true,
                useSecondsForDurations: true
              }
            }
          })
    }
  })
}

/** The SDK's logger interface over the worker's: its TRACE is our debug. */
export function sdkLogger (logger: Logger): SdkLogger {
  const methods: Record<SdkLogLevel, keyof Logger> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' }
  const log = (level: SdkLogLevel, message: string, meta?: LogMetadata): void => { logger[methods[level]](message, meta) }
  return {
    log,
    trace: (message, meta) => { log('TRACE', message, meta) },
    debug: (message, meta) => { log('DEBUG', message, meta) },
    info: (message, meta) => { log('INFO', message, meta) },
    warn: (message, meta) => { log('WARN', message, meta) },
    error: (message, meta) => { log('ERROR', message, meta) }
  }
}
