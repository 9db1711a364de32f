/**
 * Schemas of the execution endpoints: start/run bodies, WorkflowResult, Status, run listing,
 * input, and the signal/query/update handlers. Request examples name the example workflows
 * (examples/), so Swagger UI's "Try it out" works unedited against the dev stack.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { FailureCause } from '@flowport/core/failure'
import { VERSIONING_MODES } from '@flowport/core/contract'
import { VersioningOverrideSchema } from './run-versioning.js'
import { BASE64URL_PATTERN, Nullable, NameSchema, NOT_IN_QUERY_TEXT, QueryTextSchema, RunIdSchema, ruled, WorkflowIdSchema, ref, response } from './common.js'
import { FILTER_STATUSES } from '@flowport/core/run'
import { Literals, RunStatusSchema, TerminalRunStatusSchema } from './status.js'
import { CatalogIdSchema } from './catalog.js'
import { DurationSchema } from './schedules.js'
import { IfMatchSchema } from '../plugins/http/conditional/schema.js'
import { AttentionSchema, ResetPointSchema } from './reset.js'
import { InputRefSchema, PayloadLinkSchema } from './payloads.js'
import { WorkerDeploymentVersionSchema } from './deployment-version.js'

const Json = (description: string) => Type.Unknown({ description })
const IsoTime = (description: string) => Nullable(Type.String({ format: 'date-time', description }))
/** The `Prefer` request header (lib/http/prefer.ts). */
const Prefer = (description: string, example: string) => Type.Optional(Type.String({ maxLength: 1000, description, examples: [example] }))

/** Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
export const WEBHOOK_SECRET_PATTERN = '^whsec_(?:[A-Za-z0-9+/]{4}){8,22}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'

export const WebhookRequestSchema = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'Where the WorkflowResult is POSTed once the run closes (http or https; see docs/webhooks.md for the refused hosts)',
    examples: ['https://example.com/hooks/flowport']
  }),
  secret: Type.Optional(Type.String({
    pattern: WEBHOOK_SECRET_PATTERN,
    description: 'Standard Webhooks signing secret (`whsec_` + base64 of 24–64 bytes); default SERVICE_WEBHOOK_SECRET. Never returned or logged.',
    writeOnly: true
  }))
}, {
  $id: 'WebhookRequest',
  additionalProperties: false,
  description: 'A completion webhook: once the run (and any run it continues as) closes, whatever the final status, its WorkflowResult is ' +
    'delivered to `url` once, signed per Standard Webhooks, retried with exponential backoff for SERVICE_WEBHOOK_RETRY_FOR_MS. ' +
    'Delivery runs on the engine and survives API and worker restarts. On a catalog declared in a file, Flowport\'s delivery worker ' +
    '(`flowport deliveries`) delivers it; while none polls, the delivery waits and nothing is lost (docs/webhooks.md).'
})

export const UpdateWithStartSchema = Type.Object({
  name: { ...NameSchema, description: 'An update the workflow declares in its catalog', examples: ['relabel'] },
  payload: Type.Optional(Json('The update handler\'s argument, validated against its payloadSchema; absent = called without one'))
}, {
  $id: 'UpdateWithStart',
  additionalProperties: false,
  description: 'Update-with-start: when `workflowId` names an open run of this workflow, the update goes to that run and nothing is ' +
    'started; otherwise the run starts and receives the update first, in one engine call. /workflow/start answers the update\'s ' +
    'UpdateResult, /workflow/run the run\'s WorkflowResult once it closes. Not combinable with Idempotency-Key, startDelay or webhook ' +
    '(400): the update\'s id, not a key, makes a retry safe (docs/update-with-start.md).'
})

const startFields = {
  workflowName: Type.String({ minLength: 1, maxLength: 1000, description: 'Workflow name or alias in the catalog (an alias runs the canonical workflow)', examples: ['hello'] }),
  input: Type.Optional(Type.Unknown({
    description: 'The workflow input; validated against the catalog\'s inputSchema before the start. Required unless `inputRef` is sent',
    examples: [{ name: 'Ada' }]
  })),
  inputRef: Type.Optional(InputRefSchema),
  workflowId: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Workflow id to use (default: a random UUID). An id whose run is still open is refused with 409; ' +
      'the id of a closed run may be reused (reuse policy ALLOW_DUPLICATE), which starts a new run. ' +
      'Ids starting with `__flowport` and the ids `catalog` and `batch` are reserved. At most 1000 bytes in UTF-8 (the engine\'s ' +
      'limit), so fewer than 1000 characters outside ASCII; a longer id is a 400.'
  })),
  catalog: Type.Optional({ ...CatalogIdSchema, description: 'Catalog (= Temporal task queue) to run on; default SERVICE_CATALOG_ID' }),
  taskQueue: Type.Optional({ ...CatalogIdSchema, deprecated: true, description: 'Deprecated alias of `catalog`; ignored when `catalog` is sent' }),
  webhook: Type.Optional(ref(WebhookRequestSchema)),
  update: Type.Optional(ref(UpdateWithStartSchema)),
  version: Type.Optional(response(WorkerDeploymentVersionSchema, 'Run on this worker deployment version, pinned to it for its ' +
    'whole life (the engine\'s versioning override), whatever version is current: to try a new version before making it current, ' +
    'or to keep starting on an old one. The version must have polled the catalog\'s task queue (a versioned worker of it has run): ' +
    'a version the engine does not know there is a 400 ValidationError at `/version`. Absent: the engine routes the run to the ' +
    'deployment\'s current (or ramping) version, or to an unversioned worker'))
}

export const StartWorkflowBodySchema = Type.Object({
  ...startFields,
  startDelay: Type.Optional(response(DurationSchema, 'Start the run this much later (`"15m"`-style or milliseconds): it exists at once (its ids ' +
    'are answered, its status says `delayedUntil`), and its first step runs once the delay has passed, kept by the engine across restarts. ' +
    'Signals sent meanwhile are recorded and wait for it: they do not start it early.'))
}, {
  $id: 'StartWorkflowBody',
  additionalProperties: false,
  // `approval` waits for its `approve` signal: the handler examples below address this run.
  examples: [{ workflowName: 'approval', workflowId: 'expense-42', input: { label: 'expense-42' } }]
})

export const RunWorkflowBodySchema = Type.Object({
  ...startFields,
  timeout: Type.Optional(Type.Integer({
    minimum: 1,
    description: 'How long to wait for the result, in milliseconds (default SERVICE_RUN_TIMEOUT_MS; values above ' +
      'SERVICE_RUN_MAX_TIMEOUT_MS are lowered to it). When it elapses the answer is 408 and the workflow keeps running.'
  }))
}, { $id: 'RunWorkflowBody', additionalProperties: false, examples: [{ workflowName: 'hello', input: { name: 'Ada' } }] })

/**
 * The Idempotency-Key request header (IETF httpapi draft "The Idempotency-Key HTTP Header Field"):
 * 1–255 visible ASCII characters, sent bare (`abc`) or as the draft's Structured Field string
 * (`"abc"`); both spell the same key. docs/idempotency.md describes what a key does.
 */
const IdempotencyKeySchema = Type.String({
  minLength: 1,
  maxLength: 257,
  pattern: '^(?:[!#-~][!-~]{0,254}|"[!#-\\[\\]-~]{1,255}")$',
  description: 'Makes the start safe to retry: a request with a key already used in this catalog (and the same body) answers ' +
    'the run the first request started and starts nothing. 1–255 visible ASCII characters, bare or as a quoted string. ' +
    'The same key with another body (workflow name, input, catalog, webhook URL, version) is a 422 IdempotencyKeyReusedError. ' +
    'Kept as long as the engine keeps the run (the namespace retention period after it closed).',
  examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"']
})

export const RunWorkflowHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(IdempotencyKeySchema)
}, { $id: 'RunWorkflowHeaders' })

export const StartWorkflowHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(IdempotencyKeySchema),
  prefer: Prefer('RFC 7240 preferences; `wait=<seconds>` waits up to that long (capped by SERVICE_RUN_MAX_TIMEOUT_MS) for the run ' +
    'to close: 200 with its WorkflowResult if it did, else 202 with its ids, `Location` and `Retry-After`. Other preferences ' +
    'and malformed values are ignored (RFC 7240 §2).', 'wait=10')
}, { $id: 'StartWorkflowHeaders' })

/**
 * `kind` says which of the answers of POST /workflow/start a body is (its 200 is one of three):
 * the `discriminator` of that union, so a generated client builds the member it names.
 */
const Kind = <T extends string>(kind: T, description: string) => Literals([kind] as const, { description })

export const WorkflowStartedSchema = Type.Object({
  kind: Kind('started', 'Always `started`: the run was started and these are its ids'),
  workflowId: Type.String(),
  runId: Type.String({ description: 'Run id of the run this request started' })
}, { $id: 'WorkflowStarted', additionalProperties: false, description: 'The run was started; poll its status or result with these ids' })

export const TraceDestinationsSchema = Type.Object({
  local: Nullable(Type.String({ description: 'Absolute path of the local trace file; null when SERVICE_TRACE_DIR cannot be written' })),
  remote: Nullable(Type.String({ description: 'Remote trace location, e.g. an s3:// URI; null until the trace is written there (a read right at the close may come before the worker wrote it), or without a bucket' }))
}, { $id: 'TraceDestinations', additionalProperties: false, description: 'Where the run\'s trace was written' })

export const TraceInfoSchema = Type.Object({
  destinations: ref(TraceDestinationsSchema)
}, { $id: 'TraceInfo', additionalProperties: false })

export type { FailureCause }

/** Self-referencing: every level of the chain is a FailureCause. */
export const FailureCauseSchema = Type.Unsafe<FailureCause>(Type.Object({
  name: Type.String({ description: 'Error name (an application error\'s type, or the kind of wrapper: ActivityFailure, ChildWorkflowFailure, TimeoutFailure, CanceledFailure, TerminatedFailure, ServerFailure)' }),
  message: Type.String(),
  cause: Type.Union([Type.Ref('FailureCause'), Type.Null()])
}, {
  $id: 'FailureCause',
  additionalProperties: true,
  description: 'One level of the sanitized failure chain: names and messages, never stacks. Some levels carry extra ' +
    'properties (activityId, workflowName, timeoutType, retryable).'
}))

export const ErrorDetailsSchema = Type.Object({
  message: Nullable(Type.String({ description: 'Message of the underlying application error' })),
  name: Nullable(Type.String({ description: 'Name (type) of the underlying application error, e.g. ExplosionError' })),
  retryable: Nullable(Type.Boolean({ description: 'Whether the engine considered the failure retryable; null if unknown' })),
  activityId: Nullable(Type.String({ description: 'The failing step\'s activity type (`workflow#step` for Flowport\'s workers, the activity\'s own name for another SDK\'s); null when no step failed' })),
  cause: Nullable(ref(FailureCauseSchema))
}, { $id: 'ErrorDetails', additionalProperties: false })

export const WorkflowResultSchema = Type.Object({
  kind: Kind('result', 'Always `result`: the outcome of a closed run'),
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run this result belongs to' }),
  workflowName: Type.String({ description: 'Canonical name of that run\'s workflow (for a catalog file\'s workflow, its `name`, not its Temporal `workflowType`): which workflow\'s output `output` is' }),
  input: Json('The start input of this run; null if it had none'),
  output: Json('The value the workflow returned; null unless status is completed (and null when `outputRef` is there)'),
  inputRef: Type.Optional(response(PayloadLinkSchema, 'Only when the input is larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES ' +
    '(and kept by reference: docs/large-payloads.md): where to download it; `input` is then null')),
  outputRef: Type.Optional(response(PayloadLinkSchema, 'Only when the output is larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES ' +
    '(and kept by reference: docs/large-payloads.md): where to download it; `output` is then null')),
  trace: Type.Union([ref(TraceInfoSchema), Type.Null()], {
    description: 'Where the run\'s trace file is written; null when tracing is off (SERVICE_TRACE_ENABLED=false) or when no trace file is ' +
      'written for the run: a run of a catalog file\'s workers, or on a task queue no catalog is published for, whose trace ' +
      'GET /workflow/{id}/trace-log builds from the history (docs/any-worker.md)'
  }),
  status: ref(TerminalRunStatusSchema),
  error: Nullable(Type.String({ description: 'Why the run did not complete (failed, canceled, terminated, timed_out); null otherwise' })),
  errorDetails: Nullable(ref(ErrorDetailsSchema))
}, { $id: 'WorkflowResult', additionalProperties: false, description: 'The outcome of a closed run, whatever its final status' })

export const WebhookDeliverySchema = Type.Object({
  url: Type.String({ description: 'Where the completion webhook goes' }),
  state: Literals(['pending', 'delivered', 'failed'] as const, {
    description: '`pending`: the run is open, or attempts go on (with 0 attempts after the close: no worker has taken the delivery yet; ' +
      'on a declared catalog, is `flowport deliveries` running?); `delivered`: the receiver answered 2xx; `failed`: SERVICE_WEBHOOK_RETRY_FOR_MS passed without a 2xx'
  }),
  attempts: Type.Integer({ minimum: 0 }),
  lastResponseStatus: Nullable(Type.Integer({ description: 'Status code of the last answer; null when none came (refused, unreachable, timed out) or no attempt was made yet' })),
  lastError: Nullable(Type.String({ description: 'Why the last attempt failed; null after a delivery or before the first attempt' })),
  deliveredAt: Nullable(Type.String({ format: 'date-time' }))
}, { $id: 'WebhookDelivery', additionalProperties: false, description: 'Where the run\'s completion webhook stands' })

export const WorkflowStatusSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String(),
  workflowName: Type.String({ description: 'Canonical name of the workflow (for a catalog file\'s workflow, its `name`, not its Temporal `workflowType`)' }),
  catalog: Type.String({ description: 'Catalog (= task queue) the run executes on' }),
  status: ref(RunStatusSchema),
  startTime: IsoTime('When the run started'),
  closeTime: IsoTime('When the run closed; null while it is open'),
  historyLength: Type.Integer({ minimum: 0, description: 'Number of history events so far' }),
  parentWorkflowId: Nullable(Type.String({ description: 'Workflow id of the parent when this run is a child workflow' })),
  startedBy: Nullable(Type.String({
    description: 'The id of the API key that started the run (POST /workflow/start or /run); null when auth is off or the run ' +
      'was started outside those endpoints (a child workflow, another Temporal client). A run continued as new keeps its ' +
      'first run\'s (the engine carries the memo over). The engine\'s history also records the start\'s identity `flowport:<keyId>`'
  })),
  workersPolling: Nullable(Type.Boolean({
    description: 'For an open run: whether any worker polls its catalog\'s task queue (polled within the last 70 s; the engine\'s ' +
      'answer is cached for 2 s); for a run pinned to a worker deployment version, a worker of that version (no other can take its ' +
      'tasks: `attention` then says so). `false` = the run makes no progress until such a worker (SERVICE_CATALOG_ID=<catalog>) starts. ' +
      '`null` for a closed run (not checked), or when the engine could not describe the task queue (the rest of the answer ' +
      'stands; the API logs the failure).'
  })),
  scheduleId: Nullable(Type.String({ description: 'The schedule that started this run (POST /schedules); null otherwise' })),
  scheduledAt: IsoTime('When the schedule had this run due (before jitter); null unless a schedule started it'),
  delayedUntil: IsoTime('When a run started with `startDelay` begins (or began); null for a run started without a delay'),
  resetTo: Type.Optional(Nullable(Type.String({
    description: 'The run a reset of this run made (the latest one when it was reset several times); null if it was never reset. ' +
      'Absent in run listings (the engine\'s list does not say).'
  }))),
  resetFrom: Type.Optional(Type.Union([ref(ResetPointSchema), Type.Null()], {
    description: 'The run and point this run was reset from; null if a reset did not make it. Absent in run listings.'
  })),
  attention: Type.Optional(Type.Union([ref(AttentionSchema), Type.Null()], {
    description: 'Set while the engine keeps retrying the open run\'s failing workflow task: the run does not move until someone ' +
      'fixes the workflow code (or resets the run). null otherwise. Absent in run listings.'
  })),
  version: Type.Union([ref(WorkerDeploymentVersionSchema), Type.Null()], {
    description: 'The worker deployment version the run is on: the one that completed its last workflow task, or the one a start\'s ' +
      '`version` pinned it to. null for an unversioned run (run by a worker without SERVICE_WORKER_VERSIONING), and until a ' +
      'versioned worker has completed its first workflow task'
  }),
  versioning: Type.Union([Literals(VERSIONING_MODES), Type.Null()], {
    description: '`pinned`: the run stays on its version until it closes; `autoUpgrade`: it moves to the deployment\'s current ' +
      'version at its next workflow task. null when `version` is null'
  }),
  versioningOverride: Type.Optional(Type.Union([ref(VersioningOverrideSchema), Type.Null()], {
    description: 'The engine\'s versioning override of the run, which `version` and `versioning` follow: set by a start that names ' +
      'its `version` or by PUT …/versioning (moving the run to another version); null when none. Absent in run listings (the engine\'s list does not say)'
  })),
  webhook: Type.Optional(ref(WebhookDeliverySchema))
}, { $id: 'WorkflowStatus', additionalProperties: false, description: 'Status of one run' })

export const WorkflowInputSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String(),
  input: Json('The start input of that run; null if it had none (or when `inputRef` is there)'),
  inputRef: Type.Optional(response(PayloadLinkSchema, 'Only when the input is larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES ' +
    '(and kept by reference: docs/large-payloads.md): where to download it; `input` is then null'))
}, { $id: 'WorkflowInput', additionalProperties: false, description: 'The input a run was started with' })

export const RunsQuerySchema = Type.Object({
  workflowName: Type.Optional(Type.String({ ...QueryTextSchema, description: 'Only runs of this workflow type. A catalog file\'s workflow whose `name` differs from its `workflowType` is matched by name (or alias) only together with `catalog`' })),
  status: Type.Optional(Literals(FILTER_STATUSES, { description: 'Only runs in this status' })),
  catalog: Type.Optional(CatalogIdSchema),
  scheduleId: Type.Optional(Type.String({ ...QueryTextSchema, maxLength: 200, description: 'Only runs started by this schedule' })),
  version: Type.Optional(Type.String({
    ...QueryTextSchema,
    maxLength: 400,
    // A deployment name holds no `:`, so the first one separates it from the build id.
    pattern: ruled(`^[^:${NOT_IN_QUERY_TEXT}]+:[^${NOT_IN_QUERY_TEXT}]+$`, 'must be `<deploymentName>:<buildId>`, with no control character'),
    description: 'Only runs on this worker deployment version, `<deploymentName>:<buildId>` (a worker\'s deployment is its catalog id ' +
      'unless SERVICE_WORKER_DEPLOYMENT_NAME says otherwise; `flowport deploy list` shows the build ids)',
    examples: ['main:4f0c2a9e1b7d']
  })),
  startedAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Only runs started at or after this time' })),
  startedBefore: Type.Optional(Type.String({ format: 'date-time', description: 'Only runs started before this time' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Maximum runs per page' })),
  pageToken: Type.Optional(Type.String({
    maxLength: 8192,
    pattern: BASE64URL_PATTERN,
    description: 'The nextPageToken of the previous page (opaque, base64url); empty or absent = first page. A token this listing ' +
      'did not issue for these filters is a 400'
  }))
}, { $id: 'RunsQuery', additionalProperties: false })

export const WorkflowRunsSchema = Type.Object({
  runs: Type.Array(ref(WorkflowStatusSchema)),
  nextPageToken: Nullable(Type.String({ minLength: 12, maxLength: 8192, pattern: BASE64URL_PATTERN, description: 'Pass as pageToken (with the same filters) for the next page; null on the last page' }))
}, { $id: 'WorkflowRuns', additionalProperties: false, description: 'One page of runs, newest first' })

/** The body of a signal, query or update; the example fits the `approval` example workflow's handler. */
const handlerBody = ($id: string, example: Record<string, unknown>) => Type.Object({
  payload: Type.Optional(Json('The handler\'s argument; absent = the handler is called without one. ' +
    'Validated against the payloadSchema the catalog declares for the handler.'))
}, { $id, additionalProperties: false, examples: [example] })

export const SignalBodySchema = handlerBody('SignalBody', { payload: { by: 'Ada' } })
export const QueryBodySchema = handlerBody('QueryBody', {})
export const UpdateBodySchema = handlerBody('UpdateBody', { payload: { label: 'expense-43' } })

export const SignalParamsSchema = Type.Object({ id: WorkflowIdSchema, name: { ...NameSchema, description: 'Signal name', examples: ['approve'] } }, { $id: 'SignalParams' })
export const QueryParamsSchema = Type.Object({ id: WorkflowIdSchema, query: { ...NameSchema, description: 'Query name', examples: ['state'] } }, { $id: 'QueryParams' })
export const RunQueryParamsSchema = Type.Object({ id: WorkflowIdSchema, rid: RunIdSchema, query: QueryParamsSchema.properties.query }, { $id: 'RunQueryParams' })
export const UpdateParamsSchema = Type.Object({ id: WorkflowIdSchema, name: { ...NameSchema, description: 'Update name', examples: ['relabel'] } }, { $id: 'UpdateParams' })

export const SignalResultSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that received the signal' })
}, { $id: 'SignalResult', additionalProperties: false, description: 'The signal was delivered' })

export const QueryResultSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that answered' }),
  result: Json('What the query handler returned (null when it returned nothing)')
}, { $id: 'QueryResult', additionalProperties: false, description: 'What the query handler returned' })

export const UpdateResultSchema = Type.Object({
  kind: Kind('update', 'Always `update`: what an update\'s handler returned'),
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that accepted and ran the update' }),
  updateId: Type.String(),
  result: Json('What the update handler returned (null when it returned nothing)')
}, { $id: 'UpdateResult', additionalProperties: false, description: 'The update was accepted and its handler returned' })

export const UpdateHeadersSchema = Type.Object({
  'if-match': Type.Optional(IfMatchSchema),
  prefer: Prefer('RFC 7240 preferences; `respond-async` answers 202 as soon as the workflow accepted the update (its validator ' +
    'passed), with `Location` of GET /workflow/{id}/updates/{updateId}, instead of waiting for the handler. Other preferences ' +
    'are ignored (RFC 7240 §2).', 'respond-async')
}, { $id: 'UpdateHeaders' })

export const UpdateAcceptedSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that accepted the update' }),
  updateId: Type.String({ description: 'Read the update\'s state and result at GET /workflow/{id}/updates/{updateId} (the `Location`)' })
}, { $id: 'UpdateAccepted', additionalProperties: false, description: 'The workflow accepted the update; its handler runs on' })

export const UpdateStateParamsSchema = Type.Object({
  id: WorkflowIdSchema,
  updateId: { ...NameSchema, description: 'The update id of a 202 UpdateAccepted (or of a 200 UpdateResult)' }
}, { $id: 'UpdateStateParams' })

export const UpdateStateSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that accepted the update' }),
  updateId: Type.String(),
  state: Literals(['accepted', 'completed', 'failed'] as const, {
    description: '`accepted`: the handler is still running; `completed`: it returned (`result`); `failed`: it threw (`error`)'
  }),
  result: Json('What the handler returned; null unless `completed`'),
  error: Nullable(Type.String({ description: 'Why the handler failed; null unless `failed`' }))
}, { $id: 'UpdateState', additionalProperties: false, description: 'Where an accepted update stands (Temporal\'s update handle)' })

export type StartWorkflowBody = Static<typeof StartWorkflowBodySchema>
export type RunWorkflowBody = Static<typeof RunWorkflowBodySchema>
export type WorkflowStarted = Static<typeof WorkflowStartedSchema>
export type UpdateResult = Static<typeof UpdateResultSchema>
export type WebhookRequest = Static<typeof WebhookRequestSchema>
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>
export type WorkflowResult = Static<typeof WorkflowResultSchema>
export type WorkflowStatus = Static<typeof WorkflowStatusSchema>
export type WorkflowInput = Static<typeof WorkflowInputSchema>
export type RunsQuery = Static<typeof RunsQuerySchema>
export type UpdateState = Static<typeof UpdateStateSchema>
