/**
 * OpenTelemetry server spans, on only when an OTLP endpoint is set (docs/observability.md): the
 * handler runs inside the span, so the engine's interceptor carries it into the workflow.
 */
import fp from 'fastify-plugin'
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context } from '@opentelemetry/api'
import { startTracing, type Tracing } from '@flowport/core/tracing'

declare module 'fastify' {
  interface FastifyInstance {
    tracing: Tracing | null
  }
  interface FastifyRequest {
    otelContext: Context | null
  }
}

export default fp(async (fastify) => {
  const tracing = await startTracing(fastify.config, 'flowport-api')
  fastify.decorate('tracing', tracing)
  if (tracing === null) return
  const tracer = tracing.provider.getTracer('flowport-api')

  fastify.decorateRequest('otelContext', null)
  fastify.addHook('onRequest', (request, reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers)
    const route = request.routeOptions.url
    const span = tracer.startSpan(`${request.method} ${route ?? 'unmatched'}`, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        ...(route === undefined ? {} : { 'http.route': route }),
        // The path only: a query may hold ?runToken=.
        'url.path': request.url.split('?')[0],
        'flowport.request_id': request.id
      }
    }, parent)
    request.otelContext = trace.setSpan(parent, span)
    // `close` comes for finished responses and for clients that left (streams end that way).
    reply.raw.once('close', () => {
      span.setAttribute('http.response.status_code', reply.statusCode)
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    })
    done()
  })
  // The last hook before the handler: the handler, and every promise it makes, run in the span.
  fastify.addHook('preHandler', (request, _reply, done) => {
    context.with(request.otelContext ?? ROOT_CONTEXT, done)
  })
  fastify.addHook('onClose', async () => { await tracing.shutdown() })
}, { name: 'tracing', dependencies: ['config'] })
