/**
 * The API's settings: one TypeBox schema, validated at start (docs/settings.md documents each).
 * Environment values are strings; `loadConfig` (plugins/external/config/index.ts) converts and checks
 * them and names the first bad variable.
 */
import { Type, type Static } from '@sinclair/typebox'
import { DEFAULT_PORT } from '@flowport/core/api'
import { CatalogIdSetting, EngineEnvProperties, LogLevelSetting, NodeEnvSetting, OptionalString } from '@flowport/core/settings'
import { TraceEnvProperties } from '@flowport/core/trace-settings'
import { OtelEnvProperties } from '@flowport/core/tracing'
import { PayloadEnvProperties } from '@flowport/core/payloads'

const Millis = (def: number, min = 1) => Type.Integer({ minimum: min, default: def })
const Bool = (def: boolean) => Type.Boolean({ default: def })

export const ConfigSchema = Type.Object({
  NODE_ENV: NodeEnvSetting,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: DEFAULT_PORT }),
  HOST: Type.String({ default: '0.0.0.0' }),
  LOG_LEVEL: LogLevelSetting,
  SERVICE_CATALOG_ID: CatalogIdSetting,
  SERVICE_API_AUTH_TOKEN: OptionalString,
  SERVICE_API_AUTH_DISABLED: Bool(false),
  // Access control (docs/access-control.md): named keys with scopes, run tokens, per-key budgets.
  SERVICE_API_KEYS_FILE: OptionalString,
  SERVICE_API_QUERY_KEYS_ALLOWED: Bool(false),
  SERVICE_RUN_TOKEN_SECRETS: OptionalString,
  SERVICE_RUN_TOKEN_MAX_TTL_S: Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, default: 3600 }),
  SERVICE_RATE_LIMIT_MAX: Type.Integer({ minimum: 0, default: 6000 }),
  SERVICE_RATE_LIMIT_WINDOW_MS: Millis(60_000, 1000),
  // Unset: each replica counts in memory. Set (redis:// or rediss://): every replica counts in that Redis.
  SERVICE_RATE_LIMIT_REDIS_URL: OptionalString,
  SERVICE_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 2 * 1024 * 1024 }),
  // Deeper JSON bodies are a 400; the cap keeps what recurses per level downstream far from the stack limit.
  SERVICE_JSON_MAX_DEPTH: Type.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  SERVICE_RUN_TIMEOUT_MS: Millis(300_000),
  SERVICE_RUN_MAX_TIMEOUT_MS: Millis(900_000),
  SERVICE_ENGINE_CALL_TIMEOUT_MS: Millis(10_000),
  // A run's workersPolling (DescribeTaskQueue) is a secondary fact: it waits this long at most, then is null.
  SERVICE_WORKERS_POLLING_TIMEOUT_MS: Millis(2000),
  // Slow or stalled clients: time to receive the header section, the whole request (headers and
  // body; not the response, so streams and long /workflow/run waits are not cut), and how long
  // an idle keep-alive connection stays open (above the 60 s idle timeout of common load
  // balancers, so they close first).
  SERVICE_HEADERS_TIMEOUT_MS: Millis(10_000),
  SERVICE_REQUEST_TIMEOUT_MS: Millis(30_000),
  SERVICE_KEEP_ALIVE_TIMEOUT_MS: Millis(72_000),
  // Closed runs' answers kept in memory (plugins/app/runs/closed-runs.ts): how many, how many bytes, how long.
  SERVICE_CLOSED_RUN_CACHE_ENTRIES: Type.Integer({ minimum: 0, default: 10_000 }),
  SERVICE_CLOSED_RUN_CACHE_BYTES: Type.Integer({ minimum: 1024, default: 32 * 1024 * 1024 }),
  SERVICE_CLOSED_RUN_CACHE_TTL_MS: Millis(600_000),
  // The runs change feed (plugins/app/runs-feed/): how often each filter set's feed polls visibility, how old
  // a change is before it is sent (the store lists runs a little late), how far back a resume reaches.
  SERVICE_RUNS_FEED_POLL_MS: Millis(1000, 50),
  // Heartbeat of every SSE stream: below the idle timeout of the proxies in front (plugins/external/sse/index.ts).
  SERVICE_SSE_HEARTBEAT_MS: Millis(15_000, 100),
  SERVICE_RUNS_FEED_DELAY_MS: Millis(2000, 0),
  SERVICE_RUNS_FEED_RESUME_MS: Millis(3_600_000, 1000),
  SERVICE_RUNS_FEED_SESSION_MS: Millis(1_800_000, 100),
  // Caps on what stays open (plugins/external/sse/index.ts, plugins/app/runs-feed/): open streams per replica and per key, and
  // the distinct filter sets the runs feed polls (one visibility query per poll each). 0 = no cap.
  SERVICE_STREAMS_MAX: Type.Integer({ minimum: 0, default: 5000 }),
  SERVICE_STREAMS_MAX_PER_KEY: Type.Integer({ minimum: 0, default: 500 }),
  SERVICE_RUNS_FEED_MAX_FEEDS: Type.Integer({ minimum: 0, default: 50 }),
  SERVICE_CORS_ORIGIN: Type.String({ default: '*' }),
  // Prometheus metrics at GET /metrics (plugins/external/metrics/index.ts); the port, when set, serves them without auth.
  SERVICE_METRICS_ENABLED: Bool(true),
  SERVICE_METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  // The run inspector at /ui (plugins/external/ui.ts, docs/inspector.md): unset = on outside production, off in it.
  SERVICE_UI_ENABLED: Type.Optional(Type.Boolean()),
  // Temporal's own web UI, for the inspector's "open in Temporal UI" link (the dev stack sets it).
  SERVICE_UI_TEMPORAL_URL: Type.Optional(Type.String({ pattern: '^https?://\\S+$' })),
  // Shared with the worker: the engine it talks to, and how.
  ...EngineEnvProperties,
  // Completion webhooks (docs/webhooks.md): default secret, allowed hosts (comma-separated; unset =
  // any), loopback (unset = allowed outside production), link-local/metadata, and how long to retry.
  SERVICE_WEBHOOK_SECRET: OptionalString,
  SERVICE_WEBHOOK_ALLOWED_HOSTS: OptionalString,
  SERVICE_WEBHOOK_ALLOW_LOOPBACK: Type.Optional(Type.Boolean()),
  SERVICE_WEBHOOK_ALLOW_LINK_LOCAL: Bool(false),
  SERVICE_WEBHOOK_RETRY_FOR_MS: Millis(24 * 60 * 60 * 1000),
  // Shared with the worker (which writes the traces the API reads and names in results).
  ...TraceEnvProperties,
  // Large payloads by reference (docs/large-payloads.md): shared with the worker, which encodes the same references.
  ...PayloadEnvProperties,
  /** A value kept by reference up to this size is answered inline; a larger one as a presigned download URL. */
  SERVICE_PAYLOAD_INLINE_MAX_BYTES: Type.Integer({ minimum: 0, default: 1024 * 1024 }),
  /**
   * The object store's address as clients reach it (an Ingress, a published port), named in every
   * presigned URL; unset: SERVICE_CLOUD_ENDPOINT, the address the API itself reaches the store at,
   * which inside a cluster resolves for the cluster's pods only.
   */
  SERVICE_CLOUD_PUBLIC_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://\\S+$' })),
  /** Lifetime of presigned download and upload URLs. */
  SERVICE_PAYLOAD_URL_TTL_S: Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, default: 300 }),
  /** How long an uploaded payloadRef can start runs (counted from its upload). */
  SERVICE_PAYLOAD_UPLOAD_TTL_S: Type.Integer({ minimum: 1, default: 3600 }),
  /** Largest input a client may upload for `inputRef`. */
  SERVICE_PAYLOAD_UPLOAD_MAX_BYTES: Type.Integer({ minimum: 1024, default: 64 * 1024 * 1024 }),
  // OpenTelemetry traces (plugins/external/tracing.ts): the standard variables, off while no endpoint is set.
  ...OtelEnvProperties
})

export type Config = Static<typeof ConfigSchema>
