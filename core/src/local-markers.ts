/**
 * The markers Temporal SDKs record for a local activity, read whatever the worker's language. The
 * engine sees a local activity only as the marker its SDK records when it ends, and each SDK has
 * its own layout (docs/any-worker.md):
 *
 * - Temporal Core (the TypeScript SDK, so Flowport's local steps, and Python, .NET, Ruby):
 *   `core_local_activity`, detail `data` = `{activity_type, activity_id, attempt, backoff, …}`.
 * - Go: `LocalActivity`, detail `data` = `{ActivityID, ActivityType, ReplayTime, Attempt, Backoff}`
 *   (Backoff in nanoseconds, 0 unless the SDK retries after a timer).
 * - Java: `LocalActivity`, details `activityId`, `type`, `input`, `time` and `meta` =
 *   `{firstSkd, atpt, backoff}` (atpt: the attempt; backoff null unless the SDK retries after a timer).
 *
 * All of them keep the activity's output in detail `result`. Pure (the browser imports it through
 * ./steps.ts): the caller decodes a detail's first value, from a payload or from the API's JSON.
 */

const LOCAL_ACTIVITY_MARKER = 'core_local_activity'
const LOCAL_ACTIVITY_MARKER_GO_JAVA = 'LocalActivity'

/** What a local activity's marker says about it, in Temporal Core's words (the other layouts are read into them). */
export interface LocalStepMarker {
  activity_type: string
  activity_id?: string
  attempt?: number
  /** Set when the activity failed and the SDK retries it after a timer (a later marker finishes it). */
  backoff?: unknown
}

export const isLocalActivityMarker = (name: string | null | undefined): boolean =>
  name === LOCAL_ACTIVITY_MARKER || name === LOCAL_ACTIVITY_MARKER_GO_JAVA

type Fields = Record<string, unknown>
const isObject = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value)
const text = (value: unknown) => typeof value === 'string' ? value : undefined
const count = (value: unknown) => typeof value === 'number' ? value : undefined
/** A backoff that says "retried later": Go's is 0 and Java's null or 0 when none; Core's is absent or null. */
const laterRetry = (value: unknown) => value === null || value === undefined || value === 0 || value === '0' ? undefined : value

/**
 * The marker's data; null for a marker of anything else (a patch, a side effect, a version) or one
 * whose layout this reader does not know. `detail(key)`: the first value of the marker's detail
 * `key`, decoded (undefined when absent or unreadable).
 */
export function readLocalActivityMarker (markerName: string | null | undefined, detail: (key: string) => unknown): LocalStepMarker | null {
  if (markerName === LOCAL_ACTIVITY_MARKER) {
    const data = detail('data')
    return isObject(data) && typeof data.activity_type === 'string' ? data as unknown as LocalStepMarker : null
  }
  if (markerName !== LOCAL_ACTIVITY_MARKER_GO_JAVA) return null
  const javaType = text(detail('type'))
  if (javaType !== undefined) {
    const meta = detail('meta')
    const { atpt, backoff } = isObject(meta) ? meta : {}
    return withoutAbsent({ activity_type: javaType, activity_id: text(detail('activityId')), attempt: count(atpt), backoff: laterRetry(backoff) })
  }
  const data = detail('data')
  if (!isObject(data) || typeof data.ActivityType !== 'string') return null
  return withoutAbsent({ activity_type: data.ActivityType, activity_id: text(data.ActivityID), attempt: count(data.Attempt), backoff: laterRetry(data.Backoff) })
}

const withoutAbsent = (marker: LocalStepMarker): LocalStepMarker =>
  Object.fromEntries(Object.entries(marker).filter(([, v]) => v !== undefined)) as unknown as LocalStepMarker
