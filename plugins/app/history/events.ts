/**
 * History events in the engine's canonical JSON form: the protobuf JSON mapping
 * the Temporal SDK's `historyToJSON` and the Temporal CLI use (string int64s, RFC 3339 times,
 * `EVENT_TYPE_…` enum names, durations like "10s"), produced by protobufjs' protojson with the
 * SDK's own reflected types, never by a hand-written table. Payload fields are then found by
 * their protobuf type, wherever they are nested, and decoded or removed.
 */
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import protojson from 'protobufjs/ext/protojson.js'
import protobuf, { type Field, type Type } from 'protobufjs'
import { defaultPayloadConverter } from '@temporalio/common'
import type { TerminalReason } from '../../../schemas/history.js'
import { closeKindOf, nextRunOf } from '../engine/index.js'

export type RawEvent = temporal.api.history.v1.IHistoryEvent
export type EventJson = Record<string, unknown> & { eventId: string, eventType: string, eventTime: string }

// protobufjs is CommonJS without named ESM exports.
const { Type: ReflectedType } = protobuf
const root = protoRoot as unknown as typeof temporal & { temporal: typeof temporal }
const api = root.temporal.api
const HistoryType = api.history.v1.History as unknown as Type
const PAYLOAD = '.temporal.api.common.v1.Payload'
const PAYLOADS = '.temporal.api.common.v1.Payloads'

/** Message types that hold a payload somewhere below them, found once by a fixpoint over the type graph. */
const holdsPayload = (() => {
  const seen = new Set<Type>()
  const pending = [HistoryType]
  while (pending.length > 0) {
    const type = pending.pop()!
    if (seen.has(type)) continue
    seen.add(type)
    for (const field of type.fieldsArray) {
      const child = field.resolve().resolvedType
      if (child instanceof ReflectedType) pending.push(child)
    }
  }
  const holding = new Set<string>([PAYLOAD, PAYLOADS])
  for (let changed = true; changed;) {
    changed = false
    for (const type of seen) {
      if (holding.has(type.fullName)) continue
      if (type.fieldsArray.some((f) => f.resolvedType instanceof ReflectedType && holding.has(f.resolvedType.fullName))) {
        holding.add(type.fullName)
        changed = true
      }
    }
  }
  return holding
})()

interface JsonPayload { metadata?: Record<string, string>, data?: string }

/**
 * The payload's JSON value through the default payload converter; a payload it cannot turn into
 * JSON (binary/plain, a codec's encrypted bytes, protobuf) keeps its canonical `{metadata, data}` form.
 */
function decodePayload (json: JsonPayload): unknown {
  const metadata = Object.fromEntries(Object.entries(json.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]))
  try {
    const value = defaultPayloadConverter.fromPayload({ metadata, data: Buffer.from(json.data ?? '', 'base64') })
    if (value instanceof Uint8Array) return json
    return value === undefined ? null : value
  } catch {
    return json
  }
}

function rewriteValue (field: Field, value: unknown, decode: boolean): unknown {
  const type = field.resolvedType as Type
  if (type.fullName === PAYLOAD) return decodePayload(value as JsonPayload)
  if (type.fullName === PAYLOADS) return ((value as { payloads?: JsonPayload[] }).payloads ?? []).map(decodePayload)
  return rewrite(type, value as Record<string, unknown>, decode)
}

/** Decodes (`decode`) or deletes every payload below `json`, in place. */
function rewrite (type: Type, json: Record<string, unknown>, decode: boolean): Record<string, unknown> {
  for (const field of type.fieldsArray) {
    const child = field.resolvedType
    const value = json[field.jsonName]
    if (value === undefined || !(child instanceof ReflectedType) || !holdsPayload.has(child.fullName)) continue
    const isPayload = child.fullName === PAYLOAD || child.fullName === PAYLOADS
    if (isPayload && !decode) {
      delete json[field.jsonName]
    } else if (field.map) {
      const map = value as Record<string, unknown>
      for (const key of Object.keys(map)) map[key] = rewriteValue(field, map[key], decode)
    } else if (field.repeated) {
      json[field.jsonName] = (value as unknown[]).map((v) => rewriteValue(field, v, decode))
    } else {
      json[field.jsonName] = rewriteValue(field, value, decode)
    }
  }
  return json
}

/** Converts a batch of raw events (one protojson pass for the batch: it re-resolves the type root per call). */
export function eventsToJson (events: RawEvent[], includePayloads: boolean): EventJson[] {
  const json = protojson.toJson(HistoryType, { events }) as { events?: Record<string, unknown>[] }
  return (json.events ?? []).map((e) => rewrite(api.history.v1.HistoryEvent as unknown as Type, e, includePayloads) as EventJson)
}

export interface Terminal {
  eventId: number
  reason: TerminalReason
  /** Only when the terminal event chains a run: continue-as-new, cron, retry. */
  newRunId?: string
}

export const eventIdOf = (event: RawEvent): number => Number(event.eventId ?? 0)

/** The run's end, when `event` is its terminal event. */
export function terminalOf (event: RawEvent): Terminal | undefined {
  const kind = closeKindOf(event)
  if (!kind) return undefined
  const newRunId = nextRunOf(event)
  return { eventId: eventIdOf(event), reason: kind.reason, ...(newRunId ? { newRunId } : {}) }
}
