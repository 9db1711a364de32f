/**
 * Builds the Flowport API from its plugins and route groups; never listens (server.ts does).
 */
import { randomUUID } from 'node:crypto'
import Fastify, { LogController, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './schemas/config.js'
import { runTokenSecrets } from './lib/run-token-secrets.js'
import { buildValidator } from './plugins/external/schemas/validator.js'
import { buildSerializer } from './plugins/external/schemas/serializer.js'
import { Redactor, withRedaction } from './lib/log-redaction.js'
import { redisPassword } from './plugins/external/rate-limit/redis-store.js'
import configPlugin from './plugins/external/config/index.js'
import errors, { clientErrorHandler, frameworkErrors } from './plugins/http/errors.js'
import jsonBody from './plugins/http/json-body/index.js'
import cors from './plugins/external/cors.js'
import access from './plugins/app/access/index.js'
import rateLimit from './plugins/external/rate-limit/index.js'
import audit from './plugins/app/access/audit.js'
import schemas from './plugins/external/schemas/index.js'
import swagger from './plugins/external/swagger.js'
import conditional from './plugins/http/conditional/index.js'
import metrics from './plugins/external/metrics/index.js'
import tracing from './plugins/external/tracing.js'
import runLog from './plugins/http/run-log.js'
import payloads from './plugins/app/payloads/index.js'
import engine from './plugins/app/engine/index.js'
import catalogs from './plugins/app/catalogs/index.js'
import webhooks from './plugins/app/webhooks/index.js'
import runStarter from './plugins/app/run-starter/index.js'
import sse from './plugins/external/sse/index.js'
import history from './plugins/app/history/index.js'
import runsFeed from './plugins/app/runs-feed/index.js'
import traces from './plugins/app/traces/index.js'
import runs from './plugins/app/runs/index.js'
import control from './plugins/app/control/index.js'
import schedules from './plugins/app/schedules/index.js'
import batch from './plugins/app/batch/index.js'
import evals from './plugins/app/evals/index.js'
import deployments from './plugins/app/deployments/index.js'
import type { HubObserver } from './plugins/app/history/hubs.js'
import health from './routes/health.js'
import catalogRoutes from './routes/catalog.js'
import historyRoutes from './routes/history/index.js'
import workflowRoutes from './routes/workflows/index.js'
import tokenRoutes from './routes/tokens.js'
import credentialRoutes from './routes/credential.js'
import scheduleRoutes from './routes/schedules/index.js'
import ui from './plugins/external/ui.js'
import payloadRoutes from './routes/payloads.js'
import evalRoutes from './routes/evals.js'
import deploymentRoutes from './routes/deployments/index.js'

export interface BuildOptions {
  config: Config
  logger?: FastifyServerOptions['logger']
  /** The benchmark's seam into the history hubs (plugins/app/history/hubs.ts); production passes none. */
  historyObserver?: HubObserver
  /** The runs feed's seam: this replica's clock (a test's replica whose clock is off, plugins/app/runs-feed/engine-clock.ts); production passes none. */
  localClock?: () => number
  /** Destination of the default logger (default: stdout). */
  logStream?: NodeJS.WritableStream
  /** `npm start`'s object store not yet attached: why (plugins/app/payloads/payloads.ts); production passes none. */
  storeStarting?: () => string | null
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * Request line + headers Node accepts (its default is 16 KiB). The longest request the OpenAPI
 * document allows is about 25 KB: two 1000-character path parameters of 4-byte characters are
 * 12,000 bytes each once percent-encoded (`/workflow/{id}/update/{name}`), and the runs listing's
 * filters and page token add up to about as much. Larger requests get 431 (plugins/http/errors.ts).
 */
const MAX_HEADER_BYTES = 64 * 1024

/** Probes are polled every few seconds by supervisors; a log line for each would drown the rest. */
const PROBES = new Set(['/health', '/ready'])
const logController = new LogController({ disableRequestLogging: (req) => PROBES.has(req.url.split('?')[0]) })

export async function buildApp ({ config, logger, historyObserver, localClock, logStream, storeStarting }: BuildOptions) {
  // Whatever the caller's logger options, credentials never reach the log (lib/log-redaction.ts).
  // The settings' secrets are known now; the keys file's are added by the auth plugin, which reads it.
  const redactor = new Redactor([config.SERVICE_API_AUTH_TOKEN, config.TEMPORAL_API_KEY, ...runTokenSecrets(config), redisPassword(config.SERVICE_RATE_LIMIT_REDIS_URL)])
  const app = Fastify({
    logController,
    logger: withRedaction(logger ?? { level: config.LOG_LEVEL, stream: logStream }, redactor),
    bodyLimit: config.SERVICE_BODY_LIMIT_BYTES,
    // A request not received within these bounds is answered 408 RequestTimeoutError and closed
    // (plugins/http/errors.ts). Node checks them every `connectionsCheckingInterval` (default 30 s,
    // which would stretch a 10 s bound to 40 s). Fastify's `connectionTimeout` (socket inactivity)
    // stays off: a /workflow/run wait sends nothing for minutes and must not be cut.
    // Node answers a missing Host header with an empty 400 of its own; plugins/http/errors.ts answers it in the error shape.
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      requireHostHeader: false,
      headersTimeout: config.SERVICE_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.SERVICE_HEADERS_TIMEOUT_MS / 4)))
    },
    requestTimeout: config.SERVICE_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.SERVICE_KEEP_ALIVE_TIMEOUT_MS,
    // Path parameters are length-checked by the route schemas (ids up to 1000 characters → 400);
    // the router's own limit (default 100, answered 414) must never be reached first: no parameter
    // can be longer than the request line Node accepts.
    routerOptions: { maxParamLength: MAX_HEADER_BYTES },
    frameworkErrors,
    clientErrorHandler,
    // Long-lived SSE streams must not hold `close()`; plugins/external/sse/index.ts ends them first.
    forceCloseConnections: true,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    schemaController: { compilersFactory: { buildValidator, buildSerializer } }
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Callback style: an async hook would cost every request a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    done(null, payload)
  })

  await app.register(configPlugin, { config })
  // Metrics before auth and every other hook, so a request refused early is counted too.
  for (const plugin of [errors, metrics, tracing, runLog, jsonBody, cors, schemas, conditional]) await app.register(plugin)
  await app.register(sse, { heartbeatMs: config.SERVICE_SSE_HEARTBEAT_MS, caps: { total: config.SERVICE_STREAMS_MAX, perKey: config.SERVICE_STREAMS_MAX_PER_KEY } })

  // The concepts, each after those its factory takes (plugins/README.md).
  await app.register(payloads, { storeStarting })
  for (const plugin of [traces, engine, deployments, catalogs, webhooks, runs, control, runStarter]) await app.register(plugin)
  await app.register(history, { observer: historyObserver })
  await app.register(runsFeed, { localClock })
  for (const plugin of [schedules, batch, evals]) await app.register(plugin)
  // Access checks a limited key's targets by asking the concepts above; its hooks still run
  // after those of the plugins registered earlier (metrics, tracing, CORS) and before every route.
  await app.register(access, { redactor })
  await app.register(rateLimit)
  await app.register(audit)
  // After access, so its description routes are in the access table too (test/access-routes.test.ts).
  await app.register(swagger)

  for (const routes of [health, catalogRoutes, historyRoutes, workflowRoutes, tokenRoutes, credentialRoutes, scheduleRoutes, ui, payloadRoutes, evalRoutes, deploymentRoutes]) await app.register(routes)
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
