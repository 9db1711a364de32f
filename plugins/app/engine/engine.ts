/**
 * The Temporal client as one service: every call goes through `call`, which gives it a deadline
 * and runs it under the engine breaker (./breaker.ts), which answers 503 at once while the engine
 * is unreachable; engine errors come out as API errors (./errors.ts). The connection is lazy, so
 * the API starts (and answers /health, and 503 on /ready) while the engine is down, and recovers
 * by itself when it returns.
 * @see https://typescript.temporal.io/api/classes/client.Connection
 */
import { status as GrpcStatus, type Interceptor } from '@grpc/grpc-js'
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions, type DataConverter, type WorkflowClientInterceptor } from '@temporalio/client'
import { tlsFromSettings, type TlsSettings } from '@flowport/core/tls'
import type { Config } from '../../../schemas/config.js'
import { EngineBreaker, RECONNECT_CHANNEL_ARGS } from './breaker.js'
import { fromEngineError, isQueryError } from './errors.js'

export interface EngineCallOptions {
  /** Aborts the call, e.g. when the client disconnects. */
  signal?: AbortSignal
  /** Overrides the default deadline (long polls). */
  timeoutMs?: number
  workflowId?: string
  runId?: string
}

export type Engine = ReturnType<typeof createEngine>

export type EngineConfig = TlsSettings & Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'SERVICE_ENGINE_CALL_TIMEOUT_MS'>

export interface EngineDeps {
  config: EngineConfig
  /** Told when the engine becomes unreachable and reachable again. */
  onOpen: (reason: string) => void
  onClose: (downMs: number) => void
  /** The metrics' gRPC interceptor (outermost: it sees each call as a whole). */
  metrics?: Interceptor
  /** With tracing on: carries the request's span to the workflow. */
  workflowInterceptors?: WorkflowClientInterceptor[]
  /** With an object store: payloads above the threshold travel by reference. */
  dataConverter?: DataConverter
}

/** A deadline of the breaker's probe: the engine answers GetSystemInfo in milliseconds. */
const PROBE_DEADLINE_MS = 1000

/**
 * Refusals the client's retries leave alone, by method (the SDK's call context carries no per-call
 * retry choice). StartBatchOperation's RESOURCE_EXHAUSTED is the engine's cap on batches running
 * at once in a namespace (frontend.MaxConcurrentBatchOperationPerNamespace, 1 by default): it holds
 * until the running batch ends, so retrying it only turned a second batch into a 503 at the
 * deadline; answered at once, it is the client's 429 (plugins/app/batch/batch.ts).
 */
const NOT_RETRIED: ReadonlyMap<string, number> = new Map([
  ['/temporal.api.workflowservice.v1.WorkflowService/StartBatchOperation', GrpcStatus.RESOURCE_EXHAUSTED]
])

function retryInterceptor (): Interceptor {
  const defaults = defaultGrpcRetryOptions()
  // A query the store cannot run fails again on every retry: answered at once instead of at the deadline.
  const retryable = (attempt: number, status: Parameters<typeof defaults.retryableDecider>[1]) => !isQueryError(status) && defaults.retryableDecider(attempt, status)
  const retry = makeGrpcRetryInterceptor({ ...defaults, retryableDecider: retryable })
  const byMethod = new Map([...new Set(NOT_RETRIED.values())].map((code) => [code, makeGrpcRetryInterceptor({
    ...defaults, retryableDecider: (attempt, status) => status.code !== code && retryable(attempt, status)
  })]))
  return (options, nextCall) => {
    const code = NOT_RETRIED.get(options.method_definition.path)
    return (code === undefined ? retry : byMethod.get(code)!)(options, nextCall)
  }
}

function connectionOptions (config: EngineConfig, breaker?: EngineBreaker, metrics?: Interceptor): ConnectionOptions {
  const retry = retryInterceptor()
  const interceptors = breaker ? breaker.interceptors(retry) : [retry]
  return {
    address: config.TEMPORAL_ADDRESS,
    apiKey: config.TEMPORAL_API_KEY,
    tls: tlsFromSettings(config),
    // Short connect timeout: a down engine should answer 503 quickly, not hang requests.
    connectTimeout: '3s',
    channelArgs: RECONNECT_CHANNEL_ARGS,
    // The client's own retries, with the breaker watching each attempt under them; metrics see
    // each call as a whole, outermost.
    interceptors: metrics ? [metrics, ...interceptors] : interceptors
  }
}

export function createEngine ({ config, onOpen, onClose, metrics, workflowInterceptors, dataConverter }: EngineDeps) {
  const breaker = new EngineBreaker(
    () => connection.withDeadline(Date.now() + PROBE_DEADLINE_MS, () => connection.workflowService.getSystemInfo({})),
    { onOpen, onClose })
  const connection = Connection.lazy(connectionOptions(config, breaker, metrics))
  const namespace = config.TEMPORAL_NAMESPACE
  const interceptors = workflowInterceptors === undefined ? undefined : { workflow: workflowInterceptors }
  const client = new Client({ connection, namespace, interceptors, dataConverter })
  // Bounded by the keys (each key and its run tokens: two identities).
  const byIdentity = new Map<string, Client>()

  return {
    /** The default client (no identity). */
    client,
    namespace,
    /**
     * The client whose calls carry `identity` (`flowport:<key id>`, plugins/app/access/route-access.ts):
     * the engine records it in the run's history for starts, signals, updates, cancels and
     * terminations. One client per identity, sharing the connection; undefined = the default client.
     */
    as (identity: string | undefined): Client {
      if (identity === undefined) return client
      let found = byIdentity.get(identity)
      if (!found) byIdentity.set(identity, found = new Client({ connection, namespace, identity, interceptors, dataConverter }))
      return found
    },
    /** Runs an engine call with a deadline and maps engine errors to API errors. */
    async call<T> (fn: () => Promise<T>, opts: EngineCallOptions = {}): Promise<T> {
      const deadline = Date.now() + (opts.timeoutMs ?? config.SERVICE_ENGINE_CALL_TIMEOUT_MS)
      // Each call has a signal of its own: the breaker aborts it, and the Temporal client's
      // listener (never removed) dies with it instead of piling up on a long-lived caller signal.
      const call = new AbortController()
      const { signal } = opts
      const follow = () => { call.abort(signal?.reason) }
      if (signal?.aborted) follow()
      else signal?.addEventListener('abort', follow, { once: true })
      try {
        // One call-context scope with both (what withAbortSignal inside withDeadline would nest).
        const context = { ...connection.callContextStorage.getStore(), deadline, abortSignal: call.signal }
        return await breaker.run(async () => await connection.callContextStorage.run(context, fn), () => { call.abort() })
      } catch (err) {
        throw fromEngineError(err, { workflowId: opts.workflowId, runId: opts.runId }) ?? err
      } finally {
        signal?.removeEventListener('abort', follow)
      }
    },
    async close () {
      breaker.stop()
      await connection.close()
    }
  }
}
