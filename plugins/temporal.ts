/**
 * The Temporal client. The connection is lazy, so the API starts (and answers /health, and 503 on
 * /ready) while the engine is down, and recovers by itself when it returns. Every call gets a
 * deadline through `fastify.engineCall`; the connection is closed on shutdown.
 * @see https://typescript.temporal.io/api/classes/client.Connection
 */
import fp from 'fastify-plugin'
import { Client, Connection, type ConnectionOptions } from '@temporalio/client'
import { tlsFromSettings } from '@flowport/worker/tls'
import type { Config } from '../schemas/config.js'
import { withCallSignal } from '../lib/abort.js'
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
    /** Runs engine calls with a deadline and maps engine errors to API errors. */
    engineCall: <T>(fn: () => Promise<T>, opts?: EngineCallOptions) => Promise<T>
  }
}

export function connectionOptions (config: Config): ConnectionOptions {
  return {
    address: config.TEMPORAL_ADDRESS,
    apiKey: config.TEMPORAL_API_KEY,
    tls: tlsFromSettings(config),
    // Short connect timeout: a down engine should answer 503 quickly, not hang requests.
    connectTimeout: '3s'
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const connection = Connection.lazy(connectionOptions(config))
  fastify.decorate('temporal', new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }))

  fastify.decorate('engineCall', async function engineCall<T> (fn: () => Promise<T>, opts: EngineCallOptions = {}): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? config.SERVICE_ENGINE_CALL_TIMEOUT_MS)
    try {
      const withDeadline = () => connection.withDeadline(deadline, fn)
      const { signal } = opts
      return await (signal ? withCallSignal(signal, (callSignal) => connection.withAbortSignal(callSignal, withDeadline)) : withDeadline())
    } catch (err) {
      throw fromEngineError(err, { workflowId: opts.workflowId, runId: opts.runId }) ?? err
    }
  })

  fastify.addHook('onClose', async () => { await connection.close() })
}, { name: 'temporal', dependencies: ['config'] })
