/**
 * FlowportClient: one method per thing users do with the API (docs/client.md). Requests go
 * through openapi-fetch with the types generated from the OpenAPI document; non-2xx answers throw
 * the error class of the API's `error` name (errors.ts). No Node built-ins: runs in browsers too.
 */
import createClient, { type Client } from 'openapi-fetch'
import { DEFAULT_PORT } from '@flowport/core/api'
import { errorFromResponse, FlowportNetworkError } from './errors.js'
import type { StreamContext } from './event-stream.js'
import { follow, type FollowOptions } from './follow.js'
import { watchRuns, type WatchRunsOptions } from './watch-runs.js'
import { defined, iso } from './values.js'
import type {
  BackfillOptions, CallOptions, DeploymentChangeOptions, PreconditionOptions, ResetOptions, RoutingOptions, RunIdOptions, RunOptions, RunsFilters, SchedulesFilters, StartOptions, StopOptions,
  TerminateOptions, UpdateWithStartOptions, VersioningOptions
} from './options.js'
import type {
  BatchBody, BatchStarted, BatchStatus, Catalog, Credential, Deployment, DeploymentSummary, EvalRun, EvalRuns, EvalStarted, StartEvalBody, CreateScheduleBody, OpenApiDocument, paths, QueryResult, Readiness, ResetResult, RunsFeedEvent,
  Schedule, ScheduleSummary, SignalResult, StopResult, StreamEvent, TerminateResult, TraceLog, UpdateAccepted, UpdateResult, UpdateScheduleBody,
  UpdateState, UpdateWithStart, PayloadUpload, WorkflowInput, WorkflowResult, WorkflowRuns, WorkflowStarted, WorkflowStatus,
  RunVersioning, RunVersioningBody
} from './types.js'

export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_PORT}`

export interface ClientOptions {
  /** Default: the `FLOWPORT_URL` environment variable (Node), else DEFAULT_BASE_URL. */
  baseUrl?: string
  /** Bearer token. Default: the `FLOWPORT_TOKEN` environment variable (Node). */
  token?: string
  /** The fetch to use (default: the global fetch at call time). */
  fetch?: typeof fetch
  /** Extra headers on every request. */
  headers?: Record<string, string>
}

/** `If-Match` from a run id (quoted here) or an entity tag / `*` as given. */
function ifMatchHeader (ifMatch: string | undefined): { 'if-match'?: string } {
  if (ifMatch === undefined) return {}
  return { 'if-match': ifMatch === '*' || ifMatch.includes('"') ? ifMatch : `"${ifMatch}"` }
}

/** `If-Match` from an ETag as the API sent it. */
function etagHeader (etag: string | undefined): { 'if-match'?: string } {
  return etag === undefined ? {} : { 'if-match': etag }
}

/** Node's `process`, when there is one: the package is built without Node's types (browser-safe). */
declare const process: { env?: Record<string, string | undefined> } | undefined

function env (name: string): string | undefined {
  if (typeof process === 'undefined' || process.env === undefined) return undefined
  const value = process.env[name]
  return value === undefined || value === '' ? undefined : value
}

/** A run's route: of the workflow id's latest run, or with `runId` its pinned route (`/runs/{rid}/`). */
function runPath<R extends string> (runId: string | undefined, rest: R) {
  return runId === undefined ? `/workflow/{id}/${rest}` as const : `/workflow/{id}/runs/{rid}/${rest}` as const
}

function isAbort (error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error instanceof Error && error.name === 'AbortError')
}

interface FetchResult<T> { data?: T, error?: unknown, response: Response }

export class FlowportClient {
  readonly baseUrl: string
  /** Headers and fetch of every request, the streams' too. */
  readonly #context: StreamContext
  readonly #api: Client<paths>

  constructor (options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env('FLOWPORT_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
    const token = options.token ?? env('FLOWPORT_TOKEN')
    const headers = { ...options.headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) }
    const fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
    this.#context = { baseUrl: this.baseUrl, headers, fetch }
    this.#api = createClient<paths>({ baseUrl: this.baseUrl, headers, fetch: (request: Request) => fetch(request) })
  }

  async #call<T> (signal: AbortSignal | undefined, request: () => Promise<FetchResult<T>>): Promise<T> {
    let result: FetchResult<T>
    try {
      result = await request()
    } catch (error) {
      if (isAbort(error, signal)) throw signal?.reason ?? error
      throw new FlowportNetworkError(`No answer from ${this.baseUrl}: ${error instanceof Error ? error.message : String(error)}`, error)
    }
    if (!result.response.ok) throw errorFromResponse(result.response, result.error)
    return result.data as T
  }

  /** `#call`, and the answer's ETag. */
  async #callWithEtag<T> (signal: AbortSignal | undefined, request: () => Promise<FetchResult<T>>): Promise<[T, string]> {
    let etag = ''
    const data = await this.#call(signal, async () => {
      const result = await request()
      etag = result.response.headers.get('etag') ?? ''
      return result
    })
    return [data, etag]
  }

  /** Starts a workflow and waits for its result (`POST /workflow/run`). A failed run resolves with `status: 'failed'`. */
  run (workflowName: string, input: unknown, { signal, workflowId, catalog, timeout, idempotencyKey, inputRef }: RunOptions = {}): Promise<WorkflowResult> {
    return this.#call(signal, () => this.#api.POST('/workflow/run', {
      body: { workflowName, ...(inputRef === undefined ? { input } : { inputRef }), ...defined({ workflowId, catalog, timeout }) },
      params: { header: defined({ 'idempotency-key': idempotencyKey }) },
      signal
    }))
  }

  /** Starts a workflow (`POST /workflow/start`). */
  start (workflowName: string, input: unknown, { signal, workflowId, catalog, idempotencyKey, startDelay, inputRef }: StartOptions = {}): Promise<WorkflowStarted> {
    return this.#call(signal, () => this.#api.POST('/workflow/start', {
      body: { workflowName, ...(inputRef === undefined ? { input } : { inputRef }), ...defined({ workflowId, catalog, startDelay }) },
      params: { header: defined({ 'idempotency-key': idempotencyKey }) },
      signal
    }) as Promise<FetchResult<WorkflowStarted>>)
  }

  /**
   * Uploads an input too large for a request body (`POST /payloads`, then a PUT of its JSON text to
   * the presigned URL) and answers the reference to pass as `inputRef` to `run` or `start`.
   */
  async uploadInput (input: unknown, { signal }: CallOptions = {}): Promise<string> {
    const upload: PayloadUpload = await this.#call(signal, () => this.#api.POST('/payloads', { signal }))
    let response: Response
    try {
      response = await this.#context.fetch(upload.uploadUrl, { method: upload.method, body: JSON.stringify(input), signal })
    } catch (error) {
      if (isAbort(error, signal)) throw signal?.reason ?? error
      throw new FlowportNetworkError(`No answer from the payload store: ${error instanceof Error ? error.message : String(error)}`, error)
    }
    if (!response.ok) throw errorFromResponse(response, await response.text())
    return upload.payloadRef
  }

  /**
   * Update-with-start (`POST /workflow/start` with `update`): the open run of `workflowId` takes
   * the update, or a run of `workflowName` starts with `input` and takes it first; answers the
   * update's result. UpdateRejectedError / UpdateFailedError (422) name the run.
   */
  updateWithStart (workflowName: string, input: unknown, update: UpdateWithStart, { signal, workflowId, catalog }: UpdateWithStartOptions): Promise<UpdateResult> {
    return this.#call(signal, () => this.#api.POST('/workflow/start', {
      body: { workflowName, input, workflowId, update, ...defined({ catalog }) },
      signal
    }) as Promise<FetchResult<UpdateResult>>)
  }

  /** A run's read (`GET /workflow/{id}/<what>`, or its pinned route with `runId`). */
  #readRun<T> (what: 'status' | 'result' | 'input' | 'trace-log', workflowId: string, { signal, runId }: RunIdOptions): Promise<T> {
    return this.#call(signal, () => this.#api.GET(runPath(runId, what), { params: { path: { id: workflowId, rid: runId ?? '' } }, signal }) as Promise<FetchResult<T>>)
  }

  status (workflowId: string, opts: RunIdOptions = {}): Promise<WorkflowStatus> {
    return this.#readRun('status', workflowId, opts)
  }

  /** The result of a closed run; WorkflowNotCompletedError (424) while it runs. */
  result (workflowId: string, opts: RunIdOptions = {}): Promise<WorkflowResult> {
    return this.#readRun('result', workflowId, opts)
  }

  input (workflowId: string, opts: RunIdOptions = {}): Promise<WorkflowInput> {
    return this.#readRun('input', workflowId, opts)
  }

  /** The execution trace (`GET …/trace-log`). */
  trace (workflowId: string, opts: RunIdOptions = {}): Promise<TraceLog> {
    return this.#readRun('trace-log', workflowId, opts)
  }

  /** Every run matching the filters, each once, in the engine's order (open runs, then closed ones), page after page as the loop goes on. */
  async * runs (filters: RunsFilters = {}): AsyncIterable<WorkflowStatus> {
    // The engine's listing is not a snapshot: a run that closes while the pages are read moves from
    // the open runs (listed first) to the closed ones and can come twice. Each run is yielded once.
    const yielded = new Set<string>()
    let pageToken: string | undefined
    do {
      const page = await this.runsPage({ ...filters, pageToken })
      for (const run of page.runs) {
        const key = `${run.workflowId}/${run.runId}`
        if (yielded.has(key)) continue
        yielded.add(key)
        yield run
      }
      pageToken = page.nextPageToken ?? undefined
    } while (pageToken !== undefined)
  }

  /** One page of the listing (`GET /workflow/runs`), for a list that reads on when asked (a "Load more"); pass its `nextPageToken` for the next one. */
  runsPage (filters: RunsFilters & { pageToken?: string } = {}): Promise<WorkflowRuns> {
    const { signal, startedAfter, startedBefore, ...rest } = filters
    const query = { ...defined(rest), ...defined({ startedAfter: iso(startedAfter), startedBefore: iso(startedBefore) }) }
    return this.#call(signal, () => this.#api.GET('/workflow/runs', { params: { query }, signal }))
  }

  /** Sends a signal (`payload` absent = no argument). */
  signal (workflowId: string, name: string, payload?: unknown, { signal, ifMatch }: PreconditionOptions = {}): Promise<SignalResult> {
    return this.#call(signal, () => this.#api.POST('/workflow/{id}/signal/{name}', {
      params: { path: { id: workflowId, name }, header: ifMatchHeader(ifMatch) }, body: payload === undefined ? {} : { payload }, signal
    }))
  }

  /** Queries the current run, or with `runId` that run (a closed one answers too, when a worker can replay it). */
  query (workflowId: string, name: string, payload?: unknown, { signal, runId }: RunIdOptions = {}): Promise<QueryResult> {
    const body = payload === undefined ? {} : { payload }
    return this.#call(signal, () => this.#api.POST(runPath(runId, 'query/{query}'), { params: { path: { id: workflowId, rid: runId ?? '', query: name } }, body, signal }))
  }

  update (workflowId: string, name: string, payload?: unknown, { signal, ifMatch }: PreconditionOptions = {}): Promise<UpdateResult> {
    return this.#call(signal, () => this.#api.POST('/workflow/{id}/update/{name}', {
      params: { path: { id: workflowId, name }, header: ifMatchHeader(ifMatch) }, body: payload === undefined ? {} : { payload }, signal
    })).then((answer) => answer as UpdateResult) // without `Prefer: respond-async` the answer is always the 200
  }

  /** `Prefer: respond-async`: returns once the workflow accepted the update; read how it ends with `updateState`. */
  updateAsync (workflowId: string, name: string, payload?: unknown, { signal, ifMatch }: PreconditionOptions = {}): Promise<UpdateAccepted> {
    return this.#call(signal, () => this.#api.POST('/workflow/{id}/update/{name}', {
      params: { path: { id: workflowId, name }, header: { ...ifMatchHeader(ifMatch), prefer: 'respond-async' } },
      body: payload === undefined ? {} : { payload },
      signal
    })).then((answer) => answer as UpdateAccepted) // the 202 once accepted (a rejection throws UpdateRejectedError)
  }

  /** Where an accepted update stands: `accepted`, `completed` (with `result`) or `failed` (with `error`). */
  updateState (workflowId: string, updateId: string, { signal }: CallOptions = {}): Promise<UpdateState> {
    return this.#call(signal, () => this.#api.GET('/workflow/{id}/updates/{updateId}', { params: { path: { id: workflowId, updateId } }, signal }))
  }

  /** Graceful stop (cancellation); with `terminateAfterMs` the call waits that long and terminates a run still open. */
  stop (workflowId: string, { signal, runId, terminateAfterMs, reason, ifMatch }: StopOptions = {}): Promise<StopResult> {
    const body = defined({ terminateAfterMs, reason })
    return this.#call(signal, () => this.#api.PATCH(runPath(runId, 'stop'), { params: { path: { id: workflowId, rid: runId ?? '' }, header: ifMatchHeader(ifMatch) }, body, signal }))
  }

  terminate (workflowId: string, { signal, runId, reason, ifMatch }: TerminateOptions = {}): Promise<TerminateResult> {
    const body = defined({ reason })
    return this.#call(signal, () => this.#api.POST(runPath(runId, 'terminate'), { params: { path: { id: workflowId, rid: runId ?? '' }, header: ifMatchHeader(ifMatch) }, body, signal }))
  }

  /** Retry a run from a step (default: the step that failed it); answers the new run (docs/failed-runs.md). */
  reset (workflowId: string, { signal, runId, from, reason, reapply }: ResetOptions = {}): Promise<ResetResult> {
    const body = defined({ from, reason, reapply })
    return this.#call(signal, () => this.#api.POST(runPath(runId, 'reset'), { params: { path: { id: workflowId, rid: runId ?? '' } }, body, signal }))
  }

  /**
   * Sets a run's versioning override: `{behavior: 'pinned', version}` moves it to that worker
   * deployment version, `{behavior: 'autoUpgrade'}` lets it follow the current one (docs/deploys.md).
   */
  setVersioning (workflowId: string, body: RunVersioningBody, { signal, runId, ifMatch }: VersioningOptions = {}): Promise<RunVersioning> {
    return this.#call(signal, () => this.#api.PUT(runPath(runId, 'versioning'), { params: { path: { id: workflowId, rid: runId ?? '' }, header: ifMatchHeader(ifMatch) }, body, signal }))
  }

  /** Removes a run's versioning override: it follows what its workers report again. */
  clearVersioning (workflowId: string, { signal, runId, ifMatch }: VersioningOptions = {}): Promise<RunVersioning> {
    return this.#call(signal, () => this.#api.DELETE(runPath(runId, 'versioning'), { params: { path: { id: workflowId, rid: runId ?? '' }, header: ifMatchHeader(ifMatch) }, signal }))
  }

  /** Starts an eval run of a workflow over its datasets (docs/evals.md); read it with `evalRun`. */
  startEval (body: StartEvalBody, { signal }: CallOptions = {}): Promise<EvalStarted> {
    return this.#call(signal, () => this.#api.POST('/evals', { body, signal }))
  }

  /** An eval run, with its report once it completed. */
  evalRun (evalId: string, { signal }: CallOptions = {}): Promise<EvalRun> {
    return this.#call(signal, () => this.#api.GET('/evals/{evalId}', { params: { path: { evalId } }, signal }))
  }

  /** A workflow's eval runs, most recent first. */
  evals (workflowName: string, opts: CallOptions & { catalog?: string, pageSize?: number } = {}): Promise<EvalRuns> {
    const { signal, ...rest } = opts
    return this.#call(signal, () => this.#api.GET('/evals', { params: { query: { workflowName, ...defined(rest) } }, signal }))
  }

  /** Starts one action on every run a filter matches (Temporal batch operations). */
  startBatch (body: BatchBody, { signal }: CallOptions = {}): Promise<BatchStarted> {
    return this.#call(signal, () => this.#api.POST('/workflow/batch', { body, signal }))
  }

  /** Where a batch operation stands. */
  batch (batchId: string, { signal }: CallOptions = {}): Promise<BatchStatus> {
    return this.#call(signal, () => this.#api.GET('/workflow/batch/{batchId}', { params: { path: { batchId } }, signal }))
  }

  /** Stops a batch operation; runs it already acted on stay as they are. */
  stopBatch (batchId: string, { signal }: CallOptions = {}): Promise<BatchStatus> {
    return this.#call(signal, () => this.#api.DELETE('/workflow/batch/{batchId}', { params: { path: { batchId } }, signal }))
  }

  /**
   * Readiness (`GET /ready`): the engine, the default catalog and its workers, and every published
   * catalog. Not ready is a 503: a FlowportError whose `body` is the same report.
   */
  ready ({ signal }: CallOptions = {}): Promise<Readiness> {
    return this.#call(signal, () => this.#api.GET('/ready', { signal }))
  }

  /** What this client's key (or run token) may do: its scopes and limits (GET /me). */
  me ({ signal }: CallOptions = {}): Promise<Credential> {
    return this.#call(signal, () => this.#api.GET('/me', { signal }))
  }

  /** The workflows of the default catalog, or of `catalogId`. */
  catalog (catalogId?: string, { signal }: CallOptions = {}): Promise<Catalog> {
    return this.#call(signal, () => catalogId === undefined
      ? this.#api.GET('/workflow/catalog', { signal })
      : this.#api.GET('/workflow/catalog/{catalogId}', { params: { path: { catalogId } }, signal }))
  }

  /**
   * The API's OpenAPI document typed for the default catalog, or for `catalogId` (docs/catalog-openapi.md):
   * feed it to a client generator. It follows the live catalog.
   */
  catalogOpenApi (catalogId?: string, { signal }: CallOptions = {}): Promise<OpenApiDocument> {
    return this.#call(signal, () => catalogId === undefined
      ? this.#api.GET('/workflow/catalog/openapi.json', { signal })
      : this.#api.GET('/workflow/catalog/{catalogId}/openapi.json', { params: { path: { catalogId } }, signal }))
  }

  /** Creates a schedule (`POST /schedules`); resolves with its id. */
  async createSchedule (body: CreateScheduleBody, { signal }: CallOptions = {}): Promise<string> {
    const created = await this.#call(signal, () => this.#api.POST('/schedules', { body, signal }))
    return created.scheduleId
  }

  /** Every schedule matching the filters, page after page as the loop goes on. */
  async * schedules (filters: SchedulesFilters = {}): AsyncIterable<ScheduleSummary> {
    const { signal, ...rest } = filters
    let pageToken: string | undefined
    do {
      const query = { ...defined(rest), ...defined({ pageToken }) }
      const page = await this.#call(signal, () => this.#api.GET('/schedules', { params: { query }, signal }))
      yield * page.schedules
      pageToken = page.nextPageToken ?? undefined
    } while (pageToken !== undefined)
  }

  /** A schedule, and its ETag: pass it to `replaceSchedule`. */
  async getSchedule (scheduleId: string, { signal }: CallOptions = {}): Promise<{ schedule: Schedule, etag: string }> {
    const [schedule, etag] = await this.#callWithEtag(signal, () => this.#api.GET('/schedules/{scheduleId}', { params: { path: { scheduleId } }, signal }))
    return { schedule, etag }
  }

  /** Replaces a schedule; PreconditionFailedError (412) when it changed since `etag` was read. */
  async replaceSchedule (scheduleId: string, body: UpdateScheduleBody, etag: string, { signal }: CallOptions = {}): Promise<{ schedule: Schedule, etag: string }> {
    const [schedule, next] = await this.#callWithEtag(signal, () => this.#api.PUT('/schedules/{scheduleId}', { params: { path: { scheduleId }, header: { 'if-match': etag } }, body, signal }))
    return { schedule, etag: next }
  }

  async pauseSchedule (scheduleId: string, note?: string, { signal }: CallOptions = {}): Promise<void> {
    await this.#call(signal, () => this.#api.POST('/schedules/{scheduleId}/pause', { params: { path: { scheduleId } }, body: defined({ note }), signal }))
  }

  async unpauseSchedule (scheduleId: string, note?: string, { signal }: CallOptions = {}): Promise<void> {
    await this.#call(signal, () => this.#api.POST('/schedules/{scheduleId}/unpause', { params: { path: { scheduleId } }, body: defined({ note }), signal }))
  }

  /** Starts one run now (`overlap` default: the schedule's policy). */
  async triggerSchedule (scheduleId: string, { signal, overlap }: BackfillOptions = {}): Promise<void> {
    await this.#call(signal, () => this.#api.POST('/schedules/{scheduleId}/trigger', { params: { path: { scheduleId } }, body: defined({ overlap }), signal }))
  }

  /** Starts now the runs due between `startAt` and `endAt` (both inclusive). */
  async backfillSchedule (scheduleId: string, startAt: string | Date, endAt: string | Date, { signal, overlap }: BackfillOptions = {}): Promise<void> {
    const body = { startAt: iso(startAt) as string, endAt: iso(endAt) as string, ...defined({ overlap }) }
    await this.#call(signal, () => this.#api.POST('/schedules/{scheduleId}/backfill', { params: { path: { scheduleId } }, body, signal }))
  }

  /** Deletes a schedule; the runs it started are left alone. */
  async deleteSchedule (scheduleId: string, { signal }: CallOptions = {}): Promise<void> {
    await this.#call(signal, () => this.#api.DELETE('/schedules/{scheduleId}', { params: { path: { scheduleId } }, signal }))
  }

  /** The worker deployments the engine knows, with their current and ramping versions (docs/deploys.md). */
  async deployments ({ signal }: CallOptions = {}): Promise<DeploymentSummary[]> {
    return (await this.#call(signal, () => this.#api.GET('/deployments', { signal }))).deployments
  }

  /** A worker deployment with each version's state and open runs. */
  async getDeployment (deploymentName: string, { signal }: CallOptions = {}): Promise<Deployment> {
    return (await this.readDeployment(deploymentName, { signal })).deployment
  }

  /** A worker deployment and its ETag: pass it as `ifMatch` to a change, so that a change made by someone else meanwhile is not overwritten. */
  async readDeployment (deploymentName: string, { signal }: CallOptions = {}): Promise<{ deployment: Deployment, etag: string }> {
    const [deployment, etag] = await this.#callWithEtag(signal, () => this.#api.GET('/deployments/{deploymentName}', { params: { path: { deploymentName } }, signal }))
    return { deployment, etag }
  }

  /**
   * Makes a version current: new runs go to it; `null`: none is, new runs go to unversioned
   * workers. Resolves with the deployment after the change.
   */
  async setCurrentVersion (deploymentName: string, buildId: string | null, { signal, allowNoPollers, ifMatch }: DeploymentChangeOptions & RoutingOptions = {}): Promise<Deployment> {
    const body = buildId === null ? { unversioned: true as const, ...defined({ allowNoPollers }) } : { buildId, ...defined({ allowNoPollers }) }
    return await this.#call(signal, () => this.#api.PUT('/deployments/{deploymentName}/current', { params: { path: { deploymentName }, header: etagHeader(ifMatch) }, body, signal }))
  }

  /** Sends `percentage` (0 < p ≤ 100) of new runs to a version. */
  async rampVersion (deploymentName: string, buildId: string, percentage: number, { signal, allowNoPollers, ifMatch }: DeploymentChangeOptions & RoutingOptions = {}): Promise<Deployment> {
    return await this.#call(signal, () => this.#api.PUT('/deployments/{deploymentName}/ramp', { params: { path: { deploymentName }, header: etagHeader(ifMatch) }, body: { buildId, percentage, ...defined({ allowNoPollers }) }, signal }))
  }

  /** Stops a ramp: every new run goes to the current version. */
  async stopRamp (deploymentName: string, { signal, ifMatch }: DeploymentChangeOptions = {}): Promise<Deployment> {
    return await this.#call(signal, () => this.#api.DELETE('/deployments/{deploymentName}/ramp', { params: { path: { deploymentName }, header: etagHeader(ifMatch) }, signal }))
  }

  /** Makes the version that was current before current again (or the one `buildId` names). */
  async rollback (deploymentName: string, { signal, buildId, allowNoPollers, ifMatch }: DeploymentChangeOptions & RoutingOptions & { buildId?: string } = {}): Promise<Deployment> {
    return await this.#call(signal, () => this.#api.POST('/deployments/{deploymentName}/rollback', { params: { path: { deploymentName }, header: etagHeader(ifMatch) }, body: defined({ buildId, allowNoPollers }), signal }))
  }

  /**
   * Follows a run's history stream (SSE) and resumes it by itself: see follow.ts for the
   * reconnect rules. Ends after `done` (or a 204: nothing left after `lastEventId`).
   */
  follow (workflowId: string, opts: FollowOptions = {}): AsyncIterable<StreamEvent> {
    return follow(this.#context, workflowId, opts)
  }

  /**
   * Follows the runs change feed (`GET /workflow/runs/stream`): a `run` event for every run that
   * starts or closes, with the filters of `runs()`; resumes by itself (watch-runs.ts). Never ends
   * on its own: abort `signal` to stop.
   */
  watchRuns (opts: WatchRunsOptions = {}): AsyncIterable<RunsFeedEvent> {
    return watchRuns(this.#context, opts)
  }
}
