/**
 * One registry per app, so two apps in one process never share counts; process metrics once per
 * process. Labels are bounded: route templates, gRPC method names, status codes (docs/observability.md).
 */
import { InterceptingCall, status as grpcStatus, type Interceptor } from '@grpc/grpc-js'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, register as processRegistry } from 'prom-client'

/** HTTP latencies: from a cached read (well under 1 ms) to a /workflow/run that waits minutes. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
/** Engine calls: a start takes milliseconds; long polls are held up to 70 s. */
const ENGINE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 70]

const STATUS_NAMES = new Map(Object.entries(grpcStatus).map(([name, code]) => [code, name]))

export type CacheStats = Record<string, { hits: number, misses: number }>

let processMetrics = false

export class ApiMetrics {
  readonly registry = new Registry()
  readonly #requests = new Counter({ name: 'flowport_http_requests_total', help: 'HTTP requests answered, by method, route template and status code', labelNames: ['method', 'route', 'status_code'] as const, registers: [this.registry] })
  readonly #duration = new Histogram({ name: 'flowport_http_request_duration_seconds', help: 'Time from receiving a request to the end of its response (for streams: how long the stream was open)', labelNames: ['method', 'route', 'status_code'] as const, buckets: HTTP_BUCKETS, registers: [this.registry] })
  readonly #engineDuration = new Histogram({ name: 'flowport_engine_call_duration_seconds', help: 'Temporal gRPC calls made by the API, retries included, by method and gRPC status', labelNames: ['method', 'code'] as const, buckets: ENGINE_BUCKETS, registers: [this.registry] })
  readonly #engineErrors = new Counter({ name: 'flowport_engine_call_errors_total', help: 'Temporal gRPC calls that ended with a status other than OK, by method and gRPC status', labelNames: ['method', 'code'] as const, registers: [this.registry] })

  readonly #cacheSources: Array<() => CacheStats> = []

  constructor () {
    if (!processMetrics) {
      processMetrics = true
      collectDefaultMetrics({ register: processRegistry })
    }
    const sources = this.#cacheSources
    new Counter({ // eslint-disable-line no-new
      name: 'flowport_cache_requests_total',
      help: 'Cache lookups by cache and result (hit or miss)',
      labelNames: ['cache', 'result'] as const,
      registers: [this.registry],
      collect () {
        this.reset()
        for (const [cache, { hits, misses }] of sources.flatMap((read) => Object.entries(read()))) {
          this.inc({ cache, result: 'hit' }, hits)
          this.inc({ cache, result: 'miss' }, misses)
        }
      }
    })
  }

  /** The concept registers its gauges, so metrics know no concept. */
  gauge (name: string, help: string, read: () => number): void {
    new Gauge({ name, help, registers: [this.registry], collect () { this.set(read()) } }) // eslint-disable-line no-new
  }

  counter (name: string, help: string, label: string, read: () => Record<string, number>): void {
    new Counter({ // eslint-disable-line no-new
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect () {
        this.reset()
        for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count)
      }
    })
  }

  cacheStats (read: () => CacheStats): void {
    this.#cacheSources.push(read)
  }

  /** Label children made once, not per request (prom-client hashes the labels on each call). */
  readonly #requestSeries = new Map<string, { count: { inc: () => void }, duration: { observe: (value: number) => void } }>()

  observeRequest (method: string, route: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`
    let series = this.#requestSeries.get(key)
    if (series === undefined) {
      const labels = { method, route, status_code: statusCode }
      series = { count: this.#requests.labels(labels), duration: this.#duration.labels(labels) }
      this.#requestSeries.set(key, series)
    }
    series.count.inc()
    series.duration.observe(seconds)
  }

  /** Outermost on the engine connection: one observation per call as the API made it, retries inside. */
  engineInterceptor (): Interceptor {
    return (options, nextCall) => {
      const path = options.method_definition.path
      const started = performance.now()
      return new InterceptingCall(nextCall(options), {
        start: (metadata, listener, next) => {
          next(metadata, {
            onReceiveStatus: (received, nextStatus) => {
              this.#engineSeries(path, received.code).observe((performance.now() - started) / 1000)
              nextStatus(received)
            }
          })
        }
      })
    }
  }

  readonly #engineSeriesByKey = new Map<string, { observe: (seconds: number) => void }>()

  #engineSeries (path: string, code: number): { observe: (seconds: number) => void } {
    const key = `${code} ${path}`
    let series = this.#engineSeriesByKey.get(key)
    if (series === undefined) {
      const labels = { method: path.slice(path.lastIndexOf('/') + 1), code: STATUS_NAMES.get(code) ?? String(code) }
      const duration = this.#engineDuration.labels(labels)
      const errors = code === grpcStatus.OK ? undefined : this.#engineErrors.labels(labels)
      series = { observe: (seconds) => { duration.observe(seconds); errors?.inc() } }
      this.#engineSeriesByKey.set(key, series)
    }
    return series
  }

  contentType = this.registry.contentType

  async scrape (): Promise<string> {
    return await Registry.merge([this.registry, processRegistry]).metrics()
  }
}
