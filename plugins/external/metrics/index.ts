/**
 * Prometheus metrics (docs/observability.md): `GET /metrics`, and with SERVICE_METRICS_PORT a
 * listener without auth for a scraper inside the cluster.
 */
import { createServer, type Server } from 'node:http'
import fp from 'fastify-plugin'
import { ApiMetrics } from './api-metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** null when SERVICE_METRICS_ENABLED=false. */
    metrics: ApiMetrics | null
    metricsServer: Server | null
  }
}

const UNMATCHED = 'unmatched'
/** nginx's code for a client that left before the response. */
const CLIENT_CLOSED_REQUEST = 499

export default fp(async (fastify) => {
  const { config } = fastify
  fastify.decorate('metricsServer', null)
  if (!config.SERVICE_METRICS_ENABLED) {
    fastify.decorate('metrics', null)
    return
  }
  const metrics = new ApiMetrics()
  fastify.decorate('metrics', metrics)

  // On `close`, not onResponse: that hook never runs for a response the client left (every SSE stream).
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      const status = reply.raw.headersSent ? reply.statusCode : CLIENT_CLOSED_REQUEST
      metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, status, reply.elapsedTime / 1000)
    })
    done()
  })

  fastify.get('/metrics', { schema: { hide: true }, config: { scope: 'read', target: 'none' } }, async (_request, reply) => {
    const text = await metrics.scrape()
    return await reply.type(metrics.contentType).send(text)
  })

  const port = config.SERVICE_METRICS_PORT
  if (port === undefined) return
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'RouteNotFoundError', message: 'Only GET /metrics is served on this port' }))
      return
    }
    metrics.scrape().then(
      (text) => { res.writeHead(200, { 'content-type': metrics.contentType }).end(text) },
      (err: unknown) => {
        fastify.log.error({ err }, 'metrics scrape failed')
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'InternalServerError', message: 'Metrics could not be collected' }))
      })
  })
  fastify.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, config.HOST, () => { server.off('error', reject); resolve() })
    })
    fastify.metricsServer = server
  })
  fastify.addHook('onClose', async () => {
    if (server.listening) await new Promise((resolve) => server.close(resolve))
  })
}, { name: 'metrics', dependencies: ['config'] })
