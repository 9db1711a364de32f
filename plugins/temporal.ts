/**
 * The Temporal client. The connection is lazy, so the API starts (and answers /health, and 503 on
 * /ready) while the engine is down, and recovers by itself when it returns. Every call goes
 * through `fastify.engineCall`: a deadline, and the engine breaker (lib/engine-breaker.ts), which
 * answers 503 at once while the engine is unreachable. The connection is closed on shutdown.
 * @see https://typescript.temporal.io/api/classes/client.Connection
 */
import fp from 'fastify-plugin'
import type { Interceptor } from '@grpc/grpc-js'
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client'
import { tlsFromSettings } from '@flowport/core/tls'
import type { Config } from '../schemas/config.js'
import { EngineBreaker, RECONNECT_CHANNEL_ARGS } from '../lib/engine-breaker.js'
import { fromEngineError } from '../lib/engine-errors.js'

export interface EngineCallOptions {
  /** Aborts the call, e.g. when the client disconnects. */
  signal?: AbortSignal
  /** Overrides the default deadline (long polls). */
  timeoutMs?: number
  workflowId?: string
  runId?: string
}

declare module 'fastify' {
  interface FastifyInstance {
    temporal: Client
    /**
     * The client whose calls carry `identity` (`flowport:<key id>`, lib/access/principal.ts): the
     * engine records it in the run's history for starts, signals, updates, cancels and terminations.
     * One client per identity, sharing the connection; undefined = the default client.
     */
    temporalAs: (identity: string | undefined) => Client
    /** Runs engine calls with a deadline and maps engine errors to API errors. */
    engineCall: <T>(fn: () => Promise<T>, opts?: EngineCallOptions) => Promise<T>
  }
}

/** A deadline of the breaker's probe: the engine answers GetSystemInfo in milliseconds. */
const PROBE_DEADLINE_MS = 1000

export function connectionOptions (config: Config, breaker?: EngineBreaker, metrics?: Interceptor): ConnectionOptions {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions())
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

export default fp(async (fastify) => {
  const { config } = fastify
  const breaker = new EngineBreaker(
    () => connection.withDeadline(Date.now() + PROBE_DEADLINE_MS, () => connection.workflowService.getSystemInfo({})),
    {
      onOpen: (reason) => { fastify.log.warn({ reason }, 'engine unreachable: answering 503 until it is back') },
      onClose: (downMs) => { fastify.log.info({ downMs }, 'engine reachable again') }
    })
  const connection = Connection.lazy(connectionOptions(config, breaker, fastify.metrics?.engineInterceptor()))
  // With tracing on, starts, signals, queries and updates carry the request's span to the workflow.
  // The interceptor is imported only then (docs/performance.md, "Memory of the API process at start").
  const interceptors = fastify.tracing === null
    ? undefined
    : { workflow: [new (await import('@temporalio/interceptors-opentelemetry/lib/client/index.js')).OpenTelemetryWorkflowClientInterceptor()] }
  // With an object store, payloads above the threshold travel by reference (plugins/payloads.ts).
  const dataConverter = fastify.payloads === null ? undefined : { payloadCodecs: [fastify.payloads.codec] }
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, interceptors, dataConverter })
  fastify.decorate('temporal', client)
  // Bounded by the keys (each key and its run tokens: two identities).
  const byIdentity = new Map<string, Client>()
  fastify.decorate('temporalAs', (identity: string | undefined) => {
    if (identity === undefined) return client
    let found = byIdentity.get(identity)
    if (!found) byIdentity.set(identity, found = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, identity, interceptors, dataConverter }))
    return found
  })

  fastify.decorate('engineCall', async function engineCall<T> (fn: () => Promise<T>, opts: EngineCallOptions = {}): Promise<T> {
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
  })

  fastify.addHook('onClose', async () => {
    breaker.stop()
    await connection.close()
  })
}, { name: 'temporal', dependencies: ['config', 'metrics', 'tracing', 'payloads'] })
