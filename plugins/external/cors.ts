/** CORS, registered before auth so preflights are answered without credentials. */
import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import { validationError } from '../../lib/api-error.js'

export default fp(async (fastify) => {
  // OPTIONS is only ever a CORS preflight here; without its headers the plugin would answer a text/plain 400.
  fastify.addHook('onRequest', (request, _reply, done) => {
    const missing = request.method === 'OPTIONS' ? ['origin', 'access-control-request-method'].filter((name) => request.headers[name] === undefined) : []
    if (missing.length > 0) {
      done(validationError(missing.map((name) => ({ path: `/${name}`, in: 'headers', message: 'is required: OPTIONS is answered only as a CORS preflight' }))))
      return
    }
    done()
  })
  const origin = fastify.config.SERVICE_CORS_ORIGIN
  await fastify.register(cors, {
    origin: origin === '*' ? '*' : origin.split(',').map((o) => o.trim()),
    // Strings: the plugin joins an array on every response, a new string an open stream then keeps.
    methods: 'GET, POST, PATCH, OPTIONS',
    allowedHeaders: 'content-type, authorization, last-event-id, x-request-id, if-none-match, if-match',
    exposedHeaders: 'x-request-id, retry-after, www-authenticate, etag',
    maxAge: 600
  })
}, { name: 'cors', dependencies: ['config', 'errors'] })
