import { hash } from 'node:crypto'
import { ApiError } from '../../../lib/api-error.js'

export function etagOf (bytes: string | Buffer, prefix?: string): string {
  const digest = hash('sha256', bytes, 'base64url').slice(0, 16)
  return `"${prefix === undefined ? '' : `${prefix}.`}${digest}"`
}

/** Weak tags are compared by their opaque part (RFC 9110 §8.8.3.2). */
export function entityTags (header: string | string[] | undefined): string[] {
  if (header === undefined) return []
  const field = Array.isArray(header) ? header.join(',') : header
  return [...field.matchAll(/\*|(?:W\/)?"([^"]*)"/g)].map(([all, opaque]) => opaque === undefined ? all : `"${opaque}"`)
}

/** Whether `If-None-Match` or `If-Match` names `etag` (or `*`). */
export function namesTag (header: string | string[] | undefined, etag: string): boolean {
  return entityTags(header).some((tag) => tag === '*' || tag === etag)
}

/** An engine resource's strong validator: its conflict token, which changes with every change, base64url. */
export const conflictTag = (token: Uint8Array | null | undefined): string => `"${Buffer.from(token ?? []).toString('base64url')}"`

const runOfTag = (tag: string) => tag.slice(1, -1).split('.')[0]

/** Called with the run a request is about to act on, before any call that changes it. */
export function assertRunMatches (ifMatch: string | undefined, run: { workflowId: string, runId: string }): void {
  if (ifMatch === undefined) return
  const tags = entityTags(ifMatch)
  if (tags.includes('*') || tags.some((tag) => runOfTag(tag) === run.runId)) return
  throw new ApiError(412, 'PreconditionFailedError',
    `If-Match names ${tags.length === 0 ? 'no entity tag' : tags.join(', ')}, but the run this request acts on is ${run.runId}: ` +
    'nothing was sent to the engine; read the status again and decide', run)
}
