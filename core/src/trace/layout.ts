/**
 * Where a run's trace lives, the same relative key on disk and in the bucket: the key layout, and
 * why a workflow id becomes a slug and a hash, are in docs/traces.md, "Destinations and layout".
 */
import { hash as digest } from 'node:crypto'

// One-shot: every result read names its run's trace destinations (plugins/app/runs/workflow-result.ts).
const hash = (value: string) => digest('sha256', value, 'hex').slice(0, 16)

function segment (value: string): string {
  const slug = value.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 64)
  return `${slug}~${hash(value)}`
}

/** Run ids come from the engine (UUIDs); anything else is still made safe. */
const runSegment = (runId: string) => /^[0-9a-f-]{36}$/.test(runId) ? runId : segment(runId)

export function runKey (workflowId: string, runId: string): string {
  return `${segment(workflowId)}/${runSegment(runId)}`
}

export const traceKey = (workflowId: string, runId: string) => `${runKey(workflowId, runId)}.json`

/** Marker of a local copy to be written again (store.ts, setPending). */
export const pendingKey = (workflowId: string, runId: string) => `${runKey(workflowId, runId)}.pending`

export const attemptsKey = (workflowId: string, runId: string) => `${runKey(workflowId, runId)}.attempts/`

/**
 * Failed-attempt records kept per step: the first ATTEMPTS_KEPT and the last ATTEMPTS_KEPT (a
 * later attempt overwrites the slot of the one ATTEMPTS_KEPT before it). A step that retries for
 * days keeps a bounded set, which every read of its open run's trace lists and reads; the trace
 * counts the attempts in between (`attemptsOmitted`).
 */
export const ATTEMPTS_KEPT = 10

export const attemptKey = (workflowId: string, runId: string, activityId: string, attempt: number) =>
  `${attemptsKey(workflowId, runId)}${segment(activityId)}.${attempt <= ATTEMPTS_KEPT ? attempt : `last${attempt % ATTEMPTS_KEPT}`}.json`
