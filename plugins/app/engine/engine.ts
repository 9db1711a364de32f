/**
 * Every engine call goes through `call`: a deadline, the breaker, API errors. The connection is
 * lazy, so the API starts (and /health answers) while the engine is down.
 */
import { status as GrpcStatus, type Interceptor } from '@grpc/grpc-js'
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions, type DataConverter, type WorkflowClientInterceptor } from '@temporalio/client'
import { tlsFromSettings, type TlsSettings } from '@flowport/core/tls'
import type { Config } from '../../../schemas/config.js'
import { EngineBreaker, RECONNECT_CHANNEL_ARGS } from './breaker.js'
import { fromEngineError, isQueryError } from './errors.js'

export interface EngineCallOptions {
  signal?: AbortSignal
  timeoutMs?: number
  workflowId?: string
  runId?: string
}

export type Engine = ReturnType<typeof createEngine>

export type EngineConfig = TlsSettings & Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'SERVICE_ENGINE_CALL_TIMEOUT_MS'>

export interface EngineDeps {
  config: EngineConfig
  onOpen: (reason: string) => void
  onClose: (downMs: number) => void
  metrics?: Interceptor
  workflowInterceptors?: WorkflowClientInterceptor[]
  dataConverter?: DataConverter
}

/** A deadline of the breaker's probe: the engine answers GetSystemInfo in milliseconds. */
const PROBE_DEADLINE_MS = 1000

/**
 * Refusals not retried, by method (the SDK's call context has no per-call retry choice).
 * StartBatchOperation's RESOURCE_EXHAUSTED is the engine's cap on concurrent batches per namespace:
 * it holds until the running batch ends, so it is the client's 429 at once, not a 503 at the deadline.
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
    // Metrics outermost (the whole call); the breaker watches each attempt under the retries.
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
    client,
    namespace,
    /** One client per identity (`flowport:<key id>`), sharing the connection: the engine records the identity in the run's history. */
    as (identity: string | undefined): Client {
      if (identity === undefined) return client
      let found = byIdentity.get(identity)
      if (!found) byIdentity.set(identity, found = new Client({ connection, namespace, identity, interceptors, dataConverter }))
      return found
    },
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
