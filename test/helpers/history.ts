/**
 * History and stream test helpers: a Temporal client of the shared engine, starting runs of the
 * example workflows (or of a type no worker serves: its history still grows), and a small SSE
 * reader on undici `request` that keeps frames, ids and comments as they arrive on the wire.
 */
import { randomUUID } from 'node:crypto'
import { Agent, request } from 'undici'
import { Client, Connection } from '@temporalio/client'
import type { Test } from 'tap'
import { engineAddress, testCatalog } from './env.js'

export async function engineClient (t: Test): Promise<Client> {
  const connection = await Connection.connect({ address: engineAddress() })
  t.teardown(() => connection.close())
  return new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' })
}

export const uniqueId = (prefix: string) => `${prefix}-${randomUUID()}`

/** Starts an example workflow on the test worker's catalog. */
export async function startExample (client: Client, type: string, input: unknown, extra: Record<string, unknown> = {}) {
  return await client.workflow.start(type, { taskQueue: testCatalog(), workflowId: uniqueId(type), args: [input], ...extra })
}

/** Starts a workflow no worker serves: it stays running, and signals add events to it. */
export async function startIdle (client: Client, extra: Record<string, unknown> = {}) {
  return await client.workflow.start('nobody-runs-this', { taskQueue: uniqueId('no-worker'), workflowId: uniqueId('idle'), args: [{ a: 1 }, 'x'], ...extra })
}

export interface Frame { event: string, id?: string, data: string, retry?: number }

export interface SseConnection {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  frames: Frame[]
  comments: string[]
  /** Resolves when the server ends the response (or the connection is dropped). */
  ended: Promise<void>
  /** Waits until `predicate` holds for the frames received so far. */
  until: (predicate: (frames: Frame[]) => boolean) => Promise<Frame[]>
  body: () => Promise<string>
  close: () => void
}

export async function openSse (url: string, headers: Record<string, string> = {}, dispatcher?: Agent): Promise<SseConnection> {
  const res = await request(url, { headers: { accept: 'text/event-stream', ...headers }, dispatcher })
  const frames: Frame[] = []
  const comments: string[] = []
  const waiters = new Set<() => void>()
  const notify = () => { for (const w of [...waiters]) w() }
  let text = ''
  let closed = false
  const isSse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream')
  const ended = (async () => {
    let pending = ''
    let frame: Partial<Frame> & { data?: string } = {}
    try {
      for await (const chunk of res.body) {
        text += chunk.toString()
        if (!isSse) continue
        pending += chunk.toString()
        let nl: number
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl)
          pending = pending.slice(nl + 1)
          if (line === '') {
            if (frame.data !== undefined) frames.push({ event: frame.event ?? 'message', id: frame.id, data: frame.data, retry: frame.retry })
            frame = {}
            notify()
          } else if (line.startsWith(':')) {
            comments.push(line.slice(1).trim())
          } else {
            const colon = line.indexOf(':')
            const field = line.slice(0, colon)
            const value = line.slice(colon + 1).replace(/^ /, '')
            if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
            else if (field === 'event') frame.event = value
            else if (field === 'id') frame.id = value
            else if (field === 'retry') frame.retry = Number(value)
          }
        }
      }
    } catch { /* dropped by us or by the server */ }
    closed = true
    notify()
  })()
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    frames,
    comments,
    ended,
    until: async (predicate) => {
      while (!predicate(frames)) {
        if (closed) throw new Error(`stream ended before the expected frames arrived: ${JSON.stringify(frames.map((f) => f.event))}`)
        await new Promise<void>((resolve) => { const w = () => { waiters.delete(w); resolve() }; waiters.add(w) })
      }
      return frames
    },
    body: async () => { await ended; return text },
    close: () => { res.body.destroy() }
  }
}

/** Event ids of the `history` frames, flattened. */
export function eventIds (frames: Frame[]): number[] {
  return frames.filter((f) => f.event === 'history').flatMap((f) => (JSON.parse(f.data) as Array<{ eventId: string }>).map((e) => Number(e.eventId)))
}

export const hasDone = (frames: Frame[]) => frames.some((f) => f.event === 'done' || f.event === 'server_error')

/** Every value below `value` that looks like a protobuf Long or raw bytes (must never reach clients). */
export function protobufLeaks (value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return []
  const o = value as Record<string, unknown>
  if ('low' in o && 'high' in o) return [path]
  if (ArrayBuffer.isView(value)) return [path]
  return Object.entries(o).flatMap(([k, v]) => protobufLeaks(v, `${path}/${k}`))
}

/** Paths of every payload-shaped value (`payloads` arrays, `{metadata, data}` objects). */
export function payloadPaths (value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return []
  const o = value as Record<string, unknown>
  const here = 'payloads' in o || ('metadata' in o && 'data' in o) ? [path] : []
  return [...here, ...Object.entries(o).flatMap(([k, v]) => payloadPaths(v, `${path}/${k}`))]
}
