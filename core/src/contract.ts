/**
 * The contract between the Flowport API and its workers: how a catalog is published to Temporal
 * and what it contains. The API imports this module (`@flowport/core/contract`), so it must stay
 * free of anything but TypeBox.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { CatalogEval } from './eval.js'

/** Flowport's own workflow types and ids begin so: a user's workflow, id or schedule may not. */
export const RESERVED_PREFIX = '__flowport'

export const isReserved = (name: string): boolean => name.startsWith(RESERVED_PREFIX)

/** Workflow type of the internal catalog workflow; hidden from run listings. */
export const CATALOG_WORKFLOW_TYPE = '__flowport_catalog'

const CATALOG_WORKFLOW_ID_PREFIX = '__flowport_catalog:'
/** One catalog workflow per catalog id, on the task queue of the same name. */
export function catalogWorkflowId (catalogId: string): string {
  return `${CATALOG_WORKFLOW_ID_PREFIX}${catalogId}`
}
/** The catalog id a catalog workflow's id names (the task queue of a declared catalog's run is not it). */
export function catalogIdOf (workflowId: string): string | null {
  return workflowId.startsWith(CATALOG_WORKFLOW_ID_PREFIX) ? workflowId.slice(CATALOG_WORKFLOW_ID_PREFIX.length) : null
}

/**
 * A catalog declared in a file (`flowport catalog publish`, docs/any-worker.md) for workers without
 * Flowport's SDK: its catalog workflow's run, same id and input as a worker's, waits on this task
 * queue, which no worker polls, so that the catalog's own queue hands its workers only their workflows.
 */
export const DECLARED_CATALOG_TASK_QUEUE = '__flowport_declared_catalogs'

/**
 * The catalog itself is the start input of the catalog workflow's current run: a new catalog
 * continues the workflow as new, so the first event of the current run always holds it (the API
 * reads it from there, no worker needed). The memo keeps small facts only: memos are copied into
 * visibility records, and the engine and the SDK warn (TMPRL1103) above 2 KiB.
 */
export const CATALOG_HASH_MEMO_KEY = 'catalogHash'
export const CATALOG_PUBLISHED_AT_MEMO_KEY = 'publishedAt'
/** Bumped when where the catalog lives changes; a run of another format is replaced on publication. */
export const CATALOG_FORMAT_MEMO_KEY = 'catalogFormat'
export const CATALOG_FORMAT = 2

export function catalogMemo (catalog: Catalog, hash: string): Record<string, unknown> {
  return { [CATALOG_HASH_MEMO_KEY]: hash, [CATALOG_PUBLISHED_AT_MEMO_KEY]: catalog.publishedAt, [CATALOG_FORMAT_MEMO_KEY]: CATALOG_FORMAT }
}

/** Valid workflow, step, evaluator and handler names: usable as JS identifiers and in URLs. */
export const NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}$'

const JsonSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema' })
const NullableJsonSchema = Type.Union([JsonSchema, Type.Null()])

/** What every entry of a catalog workflow has: its name and description. */
const Named = { name: Type.String(), description: Type.Union([Type.String(), Type.Null()]) }
const Local = Type.Optional(Type.Boolean({ description: 'Runs as a local activity, inside the workflow task (absent from catalogs that older workers published)' }))

export const CatalogStepSchema = Type.Object({ ...Named, inputSchema: JsonSchema, outputSchema: JsonSchema, local: Local }, { $id: 'CatalogStep', additionalProperties: false })

export const CatalogEvaluatorSchema = Type.Object({ ...Named, inputSchema: JsonSchema, local: Local }, { $id: 'CatalogEvaluator', additionalProperties: false })

export const CatalogHandlerSchema = Type.Object({
  ...Named,
  /** JSON Schema of the payload; null when the handler takes no argument. */
  payloadSchema: NullableJsonSchema,
  /** JSON Schema of the result; null for signals. */
  resultSchema: NullableJsonSchema,
  handlerName: Type.Optional(Type.String({
    description: 'The name the worker registers the handler under, when it is not `name` (declared catalogs: another SDK allows names the API\'s paths do not)'
  }))
}, { $id: 'CatalogHandler', additionalProperties: false })

export const CatalogWorkflowSourceSchema = Type.Object({
  package: Type.String({ description: 'npm package the workflow comes from (the worker\'s own project for local workflows)' }),
  version: Type.Union([Type.String(), Type.Null()], { description: 'Its version; null when the package has none' })
}, { $id: 'CatalogWorkflowSource', additionalProperties: false })

/**
 * A worker deployment version (docs/versioning.md). The API's wire schema of it is
 * schemas/deployment-version.ts (`$id` WorkerDeploymentVersion); this inline copy keeps the
 * contract checkable without the API's schemas.
 */
export const DeploymentVersionSchema = Type.Object({ deploymentName: Type.String(), buildId: Type.String() }, { additionalProperties: false })
export type DeploymentVersion = Static<typeof DeploymentVersionSchema>

/** How a workflow's open runs meet a new current version: they stay on theirs, or move to it. */
export const VERSIONING_MODES = ['pinned', 'autoUpgrade'] as const
export type VersioningMode = typeof VERSIONING_MODES[number]

export const CatalogWorkflowSchema = Type.Object({
  name: Type.String(),
  description: Type.String(),
  aliases: Type.Array(Type.String()),
  inputSchema: JsonSchema,
  outputSchema: JsonSchema,
  steps: Type.Array(Type.Unsafe<Static<typeof CatalogStepSchema>>(Type.Ref('CatalogStep'))),
  evaluators: Type.Array(Type.Unsafe<Static<typeof CatalogEvaluatorSchema>>(Type.Ref('CatalogEvaluator'))),
  signals: Type.Array(Type.Unsafe<Static<typeof CatalogHandlerSchema>>(Type.Ref('CatalogHandler'))),
  queries: Type.Array(Type.Unsafe<Static<typeof CatalogHandlerSchema>>(Type.Ref('CatalogHandler'))),
  updates: Type.Array(Type.Unsafe<Static<typeof CatalogHandlerSchema>>(Type.Ref('CatalogHandler'))),
  source: Type.Unsafe<Static<typeof CatalogWorkflowSourceSchema>>(Type.Ref('CatalogWorkflowSource')),
  /** The workflow's eval (an `eval` module beside it, docs/evals.md); absent when it has none. */
  eval: Type.Optional(Type.Unsafe<CatalogEval>(Type.Ref('CatalogEval'))),
  workflowType: Type.Optional(Type.String({
    description: 'The Temporal workflow type a start uses, when it is not `name` (declared catalogs: a worker without Flowport\'s SDK names its types itself)'
  })),
  versioning: Type.Optional(Type.Union(VERSIONING_MODES.map((m) => Type.Literal(m)), {
    description: 'Under worker versioning, whether an open run stays on the version that started it (`pinned`) or moves to the current ' +
      'version (`autoUpgrade`); absent from catalogs that older workers published'
  }))
}, { $id: 'CatalogWorkflow', additionalProperties: false })

export const CatalogSchema = Type.Object({
  catalog: Type.String({ description: 'Catalog id = Temporal task queue' }),
  publishedAt: Type.String({ format: 'date-time' }),
  /** The version whose workers published these entries; null from an unversioned worker, absent from older workers. */
  deployment: Type.Optional(Type.Union([DeploymentVersionSchema, Type.Null()])),
  workflows: Type.Array(Type.Unsafe<Static<typeof CatalogWorkflowSchema>>(Type.Ref('CatalogWorkflow'))),
  declared: Type.Optional(Type.Boolean({
    description: 'Published from a catalog file (`flowport catalog publish`) for workers without Flowport\'s SDK: large inputs, evals and ' +
      'traces written by the worker do not apply (docs/any-worker.md); absent from a Flowport worker\'s catalog'
  }))
}, { $id: 'Catalog', additionalProperties: false })

/**
 * The catalog workflow's input, which is its current run's first event: the latest published
 * catalog and, from versioned workers, the catalog of each version the deployment still has (by
 * build id), so that while two versions are live the API shows the current version's entries
 * without any worker publishing again when the current version changes.
 */
export interface CatalogWorkflowInput {
  catalog: Catalog
  hash: string
  /** Absent from runs that unversioned or older workers published. */
  versions?: Record<string, { catalog: Catalog, hash: string }>
}

export type CatalogStep = Static<typeof CatalogStepSchema>
export type CatalogEvaluator = Static<typeof CatalogEvaluatorSchema>
export type CatalogHandler = Static<typeof CatalogHandlerSchema>
export type CatalogWorkflow = Static<typeof CatalogWorkflowSchema>
export type Catalog = Static<typeof CatalogSchema>

/**
 * The completion-webhook delivery workflow (worker/src/workflow/webhook.ts): one per delivered run,
 * started by the API on the run's catalog before the run itself, id `__flowport_webhook:<hash>`;
 * the run's memo names it (WEBHOOK_RUN_MEMO_KEY), so a run with a webhook never exists without it.
 */
export const WEBHOOK_WORKFLOW_TYPE = '__flowport_webhook'
/** Its activities: wait for the run's close and build the body, then POST it. */
export const WEBHOOK_AWAIT_ACTIVITY = `${WEBHOOK_WORKFLOW_TYPE}#awaitClose`
export const WEBHOOK_DELIVER_ACTIVITY = `${WEBHOOK_WORKFLOW_TYPE}#deliver`
/**
 * The task queue deliveries are POSTed from, beside the catalog's own, polled by every worker of
 * the catalog with slots of its own (ENGINE_MAX_CONCURRENT_WEBHOOK_DELIVERIES): receivers that
 * trickle or hang hold those slots only, never a step's (docs/webhooks.md).
 */
export const webhookDeliveryQueue = (catalogId: string): string => `${catalogId}:webhooks`
/**
 * Where the delivery workflows of declared catalogs run (docs/any-worker.md): their workers know no
 * delivery workflow, so Flowport's delivery worker (`flowport deliveries`) polls this queue and its
 * delivery queue (webhookDeliveryQueue of it) instead.
 */
export const DELIVERIES_TASK_QUEUE = '__flowport_deliveries'
/** Memo field of the delivery workflow: its DeliveryRecord, kept current as attempts are made. */
export const WEBHOOK_DELIVERY_MEMO_KEY = 'flowportDelivery'
/**
 * Memo field of a run started with a webhook: `{url, delivery}` (never the secret): the URL for the
 * status, and the id of the delivery workflow that delivers this run, which finds its run by it.
 */
export const WEBHOOK_RUN_MEMO_KEY = 'flowportWebhook'
/**
 * Memo field of a run started through the API with auth on: the id of the key that started it.
 * The status and the trace read it from the memo (the describe and the started event carry it),
 * so saying who started a run costs no extra engine call.
 */
export const STARTED_BY_MEMO_KEY = 'flowportStartedBy'

export interface WebhookDeliveryInput {
  /** The run whose completion is delivered (the chain it starts is followed through continue-as-new). */
  workflowId: string
  /**
   * Absent when the delivery starts before its run (as the API starts it): the run is then the run
   * of `workflowId` whose memo names this delivery workflow.
   */
  runId?: string
  /**
   * How long to wait for that run to appear. When none does (the API stopped, or the run's start
   * failed, between the two starts), nothing is delivered and the delivery workflow fails.
   */
  runStartWithinMs?: number
  url: string
  /** Standard Webhooks secret (`whsec_` + base64). Kept only in this reserved workflow's input, which the API never returns. */
  secret: string
  /** `webhook-id` of every attempt. */
  messageId: string
  /** Attempts go on for this long after the first one; then the delivery is given up as failed. */
  retryForMs: number
  allowLoopback: boolean
  allowLinkLocal: boolean
  /**
   * The body's `workflowName` in place of the run's Temporal type: a declared workflow's `name`.
   * Absent in deliveries of Flowport's catalogs and in those started before it existed.
   */
  workflowName?: string
}

/** The run memo's WEBHOOK_RUN_MEMO_KEY field. `delivery` is absent in runs started before deliveries were started first. */
export interface WebhookRunMemo { url: string, delivery?: string }

export interface DeliveryRecord {
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  /** Status code of the last answer, or null when none came (refused, unreachable, timed out). */
  lastResponseStatus: number | null
  lastError: string | null
  /** When the receiver answered 2xx (ISO-8601), else null. */
  deliveredAt: string | null
}
