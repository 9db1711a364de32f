// Small pieces every view uses. Values from workflows are only ever children (text) or
// properties here: nothing is parsed as HTML.
import { html } from './html.js'
import { pretty } from './schema.js'
import { formatDuration } from './vendor/core.mjs'

export const Json = ({ value, label }) => html`<pre class="json" aria-label=${label}>${value === undefined ? '—' : pretty(value)}</pre>`

export const Status = ({ status }) => html`<span class=${`status status-${status}`} data-status=${status}>${status}</span>`

/**
 * A run's worker deployment version (its status' `version` and `versioning`): the build id, the
 * deployment in the title, and whether the run stays on it (`pinned`) or follows the current
 * version (`auto-upgrade`). Null: an unversioned run, or one no versioned worker has taken yet.
 */
export const Version = ({ version, versioning }) => (version
  ? html`<span class="version" data-build-id=${version.buildId} data-versioning=${versioning} title=${`Deployment ${version.deploymentName}, build ${version.buildId}`}><code>${version.buildId}</code> <span class="versioning">${versioning === 'autoUpgrade' ? 'auto-upgrade' : 'pinned'}</span></span>`
  : html`<span class="version muted" data-build-id="" title="Run by an unversioned worker, or not taken by a versioned one yet">unversioned</span>`)

export const time = (iso) => (iso ? new Date(iso).toLocaleString() : '—')

/** The time of day only (12:04:05), for what happened during a run. */
export const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '—')

/** From one ISO time to another, for people (core/src/duration.ts); empty while either is missing. */
export const duration = (fromIso, toIso) => (fromIso && toIso ? formatDuration(Date.parse(toIso) - Date.parse(fromIso)) : '')

/** The API's error names (client/src/errors.ts) in words; a name not listed is shown as it is. */
const ERROR_WORDS = {
  ValidationError: 'The API refused the request',
  UnauthorizedError: 'No valid key',
  ForbiddenError: 'Not allowed for this key',
  WorkflowNotFoundError: 'No such run',
  WorkflowAlreadyStartedError: 'A run with this workflow id is already open',
  WorkflowAlreadyClosedError: 'The run is already closed',
  UpdateRejectedError: 'The workflow refused the update',
  UpdateFailedError: 'The update failed',
  QueryFailedError: 'The query failed',
  SignalNotFoundError: 'The workflow has no such signal',
  QueryNotFoundError: 'The workflow has no such query',
  UpdateNotFoundError: 'The workflow has no such update',
  PreconditionFailedError: 'Changed meanwhile',
  ResetNotPossibleError: 'The run cannot be reset from there',
  EngineUnavailableError: 'The workflow engine is unavailable',
  CatalogNotAvailableError: 'The catalog is not available',
  RateLimitedError: 'Too many requests',
  RequestTimeoutError: 'The API took too long',
  TraceNotFoundError: 'No trace for this run',
  StreamGaveUp: 'Gave up following live',
  InternalServerError: 'The API failed'
}

/** An error in words (its name stays in data-error, for tools and tests). */
export const errorWords = (error) => ERROR_WORDS[error?.name] ?? error?.name ?? 'Error'

/** An API error as the API worded it, under a title in words, plus validation issues when there are any. */
export function Problem ({ error }) {
  if (!error) return null
  const issues = Array.isArray(error.body?.issues) ? error.body.issues : []
  return html`<div class="problem" role="alert" data-error=${error.name}>
    <strong>${errorWords(error)}</strong>: ${error.message}
    ${issues.length > 0 && html`<ul>${issues.map((i) => html`<li>${i.path ?? ''} ${i.message ?? pretty(i)}</li>`)}</ul>`}
  </div>`
}

/** A live stream's state in words; while reconnecting, why (the API's error, or the dropped connection). */
export const streamState = (live, error) => (live === 'reconnecting' ? `reconnecting…${error ? ` (${errorWords(error).toLowerCase()}: ${error.message})` : ''}` : live)

export const runHref = (workflowId, runId) => `#/run/${encodeURIComponent(workflowId)}${runId ? `/${encodeURIComponent(runId)}` : ''}`

export const go = (hash) => { window.location.hash = hash }
