/**
 * CORS for browsers and Swagger UI on other origins. Registered before auth so preflights are
 * answered without credentials; PATCH (stop) and Last-Event-ID (SSE resume) are allowed.
 * @see https://github.com/fastify/fastify-cors
 */
import fp from 'fastify-plugin'
import cors from '@fastify/cors'

export default fp(async (fastify) => {
  const origin = fastify.config.SERVICE_CORS_ORIGIN
  await fastify.register(cors, {
    origin: origin === '*' ? '*' : origin.split(',').map((o) => o.trim()),
    methods: ['GET', 'POST', 'PATCH', 'OPTIONS'],
    allowedHeaders: ['content-type', 'authorization', 'last-event-id', 'x-request-id'],
    exposedHeaders: ['x-request-id', 'retry-after', 'www-authenticate'],
    maxAge: 600
  })
}, { name: 'cors', dependencies: ['config'] })
