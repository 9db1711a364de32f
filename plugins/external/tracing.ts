/**
 * OpenTelemetry traces of the API, on only when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): then every request gets a server span named
 * `<method> <route template>`, a child of the caller's `traceparent` when it sent one, and the
 * handler runs inside it, so the Temporal client's interceptor (plugins/app/engine/) carries it
 * into the workflow and its steps. Off: no hook, no decorator, no span. See docs/observability.md.
 * @see https://github.com/temporalio/sdk-typescript/tree/main/packages/interceptors-opentelemetry
 */
import fp from 'fastify-plugin'
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Context } from '@opentelemetry/api'
import { startTracing, type Tracing } from '@flowport/core/tracing'

declare module 'fastify' {
  interface FastifyInstance {
    /** null when tracing is off. */
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
