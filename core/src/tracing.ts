/**
 * OpenTelemetry tracing from the standard `OTEL_*` settings, shared by the API and the worker:
 * on only when an OTLP endpoint is set (and OTEL_SDK_DISABLED is not true); otherwise nothing is
 * created, registered or hooked. Spans leave over OTLP/HTTP, protobuf by default (the spec's
 * default) or JSON. The W3C `traceparent` propagator and an AsyncLocalStorage context manager are
 * registered globally: the Temporal SDK's interceptors read the active context and write it into
 * the headers of what they start (@temporalio/interceptors-opentelemetry). See docs/observability.md.
 */
import { Type, type Static } from '@sinclair/typebox'
import { OptionalString } from './settings.js'
import { context, propagation, trace } from '@opentelemetry/api'
import type { Sampler } from '@opentelemetry/sdk-trace-base'

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const

/** The standard variables Flowport reads itself (the exporter also reads OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_* and the like). */
export const OtelEnvProperties = {
  OTEL_SDK_DISABLED: Type.Boolean({ default: false }),
  OTEL_EXPORTER_OTLP_ENDPOINT: OptionalString,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: OptionalString,
  OTEL_EXPORTER_OTLP_PROTOCOL: Type.Optional(Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')])),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Type.Optional(Type.Union([Type.Literal('http/protobuf'), Type.Literal('http/json')])),
  OTEL_SERVICE_NAME: OptionalString,
  OTEL_TRACES_SAMPLER: Type.Optional(Type.Union(SAMPLERS.map((s) => Type.Literal(s)))),
  OTEL_TRACES_SAMPLER_ARG: Type.Optional(Type.Number({ minimum: 0, maximum: 1 }))
}
export type OtelSettings = Static<ReturnType<typeof Type.Object<typeof OtelEnvProperties>>>

export type Tracing = NonNullable<Awaited<ReturnType<typeof startTracing>>>

type SdkTraceBase = typeof import('@opentelemetry/sdk-trace-base')

function samplerFrom (settings: OtelSettings, { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler }: SdkTraceBase): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.OTEL_TRACES_SAMPLER_ARG ?? 1)
  switch (settings.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on') {
    case 'always_on': return new AlwaysOnSampler()
    case 'always_off': return new AlwaysOffSampler()
    case 'traceidratio': return ratio
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: ratio })
    default: return new ParentBasedSampler({ root: new AlwaysOnSampler() })
  }
}

/** The traces URL: the signal-specific endpoint as given, or the base endpoint + `/v1/traces` (the spec's rule). */
function tracesUrl (settings: OtelSettings): string | undefined {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  const base = settings.OTEL_EXPORTER_OTLP_ENDPOINT
  return base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`
}

/**
 * Starts tracing when the settings ask for it; null (and nothing done) otherwise. The SDK is
 * imported only then: off, it costs the process nothing (about 6 MiB of memory; docs/performance.md).
 */
export async function startTracing (settings: OtelSettings, defaultServiceName: string) {
  const url = tracesUrl(settings)
  if (url === undefined || settings.OTEL_SDK_DISABLED) return null
  const protocol = settings.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? settings.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf'
  const [{ Resource, envDetectorSync }, base, { NodeTracerProvider }, exporter] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http').then(({ OTLPTraceExporter }) => new OTLPTraceExporter({ url }))
      : import('@opentelemetry/exporter-trace-otlp-proto').then(({ OTLPTraceExporter }) => new OTLPTraceExporter({ url }))
  ])
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': settings.OTEL_SERVICE_NAME ?? defaultServiceName }))
    .merge(envDetectorSync.detect()) // OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME again, which wins)
  const processor = new base.BatchSpanProcessor(exporter)
  const provider = new NodeTracerProvider({ resource, sampler: samplerFrom(settings, base), spanProcessors: [processor] })
  provider.register()
  return {
    provider,
    // What the worker hands the workflow sandbox's span sink (spans made in workflow code).
    processor,
    resource,
    // Flushes the spans not yet sent and unregisters the globals.
    shutdown: async () => {
      await provider.shutdown()
      trace.disable()
      context.disable()
      propagation.disable()
    }
  }
}
