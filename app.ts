/**
 * Builds the Flowport API from its plugins and route groups; never listens (server.ts does).
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Config } from './schemas/config.js'
import { buildValidator } from './lib/validator.js'
import configPlugin from './plugins/config.js'
import errors from './plugins/errors.js'
import cors from './plugins/cors.js'
import auth from './plugins/auth.js'
import schemas from './plugins/schemas.js'
import swagger from './plugins/swagger.js'
import temporal from './plugins/temporal.js'
import catalogPlugin from './plugins/catalog.js'
import sse from './plugins/sse.js'
import historyPlugin from './plugins/history.js'
import health from './routes/health.js'
import catalogRoutes from './routes/catalog.js'
import historyRoutes from './routes/history/index.js'
import workflowRoutes from './routes/workflows/index.js'

export interface BuildOptions {
  config: Config
  logger?: FastifyServerOptions['logger']
}

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** Never log `access_token` (stream routes accept it in the query string). */
function redactUrl (url: string): string {
  return url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]')
}

export async function buildApp ({ config, logger }: BuildOptions) {
  const app = Fastify({
    logger: logger ?? {
      level: config.LOG_LEVEL,
      serializers: {
        req: (req) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip })
      }
    },
    bodyLimit: config.SERVICE_BODY_LIMIT_BYTES,
    // Path parameters are length-checked by the route schemas (ids up to 1000 characters → 400);
    // the router's own limit (default 100, answered 414) must sit above that.
    routerOptions: { maxParamLength: 4096 },
    // Long-lived SSE streams must not hold `close()`; plugins/sse.ts ends them first.
    forceCloseConnections: true,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    schemaController: { compilersFactory: { buildValidator } }
  }).withTypeProvider<TypeBoxTypeProvider>()

  // An empty body sent with a JSON content type means "no body" (optional bodies stay optional);
  // anything else goes through Fastify's own JSON parser (prototype-poisoning protection).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined)
    else parseJson(request, body as string, done)
  })

  app.addHook('onSend', async (request, reply) => { reply.header('x-request-id', request.id) })

  await app.register(configPlugin, { config })
  await app.register(errors)
  await app.register(cors)
  await app.register(auth)
  await app.register(schemas)
  await app.register(swagger)
  await app.register(temporal)
  await app.register(catalogPlugin)
  await app.register(sse)
  await app.register(historyPlugin)

  await app.register(health)
  await app.register(catalogRoutes)
  await app.register(historyRoutes)
  await app.register(workflowRoutes)
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
