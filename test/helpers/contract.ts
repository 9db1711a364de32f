/**
 * Checks a response against the committed openapi/openapi.json: the status must be declared for
 * that operation and the body must match the declared schema. What generated clients rely on.
 * A text/event-stream body is checked event by event: each `{event, data, id?, retry?}` against
 * the declared event schema, and its `data` JSON against that event's `contentSchema`.
 */
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { Test } from 'tap'

const addFormats = addFormatsModule.default
const DOC_ID = 'flowport-openapi'
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'))

const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false })
addFormats(ajv)
ajv.addSchema({ ...doc, $id: DOC_ID })

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')

export interface ResponseLike {
  statusCode: number
  body: string
  headers?: Record<string, unknown>
}

/** `routePath` is the OpenAPI template, e.g. `/workflow/{id}/status`. */
export function assertContract (t: Test, method: string, routePath: string, res: ResponseLike): void {
  const where = `${method.toUpperCase()} ${routePath} → ${res.statusCode}`
  const operation = doc.paths?.[routePath]?.[method.toLowerCase()]
  if (!operation) {
    t.fail(`${where}: operation is not in openapi.json`)
    return
  }
  const status = String(res.statusCode)
  const declared = operation.responses?.[status]
  if (!t.ok(declared, `${where}: status is declared`)) return
  const mediaTypes = Object.keys(declared.content ?? {})
  if (mediaTypes.length === 0) {
    t.equal(res.body, '', `${where}: no body declared, none sent`)
    return
  }
  if (mediaTypes.includes('text/event-stream') && String(res.headers?.['content-type'] ?? '').startsWith('text/event-stream')) {
    assertEvents(t, where, ['paths', routePath, method.toLowerCase(), 'responses', status, 'content', 'text/event-stream', 'schema'], res.body)
    return
  }
  const jsonType = mediaTypes.find((m) => m.includes('json'))
  if (!jsonType) {
    t.ok(mediaTypes.length > 0, `${where}: non-JSON body (${mediaTypes.join(', ')})`)
    return
  }
  const pointer = ['paths', routePath, method.toLowerCase(), 'responses', status, 'content', jsonType, 'schema'].map(escape).join('/')
  const validate = ajv.getSchema(`${DOC_ID}#/${pointer}`)
  if (!validate) {
    t.fail(`${where}: no schema at ${pointer}`)
    return
  }
  const body = res.body === '' ? undefined : JSON.parse(res.body)
  const valid = validate(body) as boolean
  t.ok(valid, `${where}: body matches the schema`, valid ? {} : { errors: validate.errors, body })
}

export interface SseEvent { event: string, data: string, id?: string, retry?: number }

/** Events as an SSE parser (EventSource, schemathesis) delivers them: the last id carries over, comments are dropped. */
export function parseSse (text: string): SseEvent[] {
  const events: SseEvent[] = []
  let lastId: string | undefined
  let current: Partial<SseEvent> = {}
  let data: string[] = []
  const flush = () => {
    if (data.length > 0) {
      events.push({ event: current.event ?? 'message', data: data.join('\n'), ...(lastId === undefined ? {} : { id: lastId }), ...(current.retry === undefined ? {} : { retry: current.retry }) })
    }
    current = {}
    data = []
  }
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') { flush(); continue }
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') data.push(value)
    else if (field === 'event') current.event = value
    else if (field === 'id') lastId = value
    else if (field === 'retry' && /^\d+$/.test(value)) current.retry = Number(value)
  }
  flush()
  return events
}

const contentValidators = new Map<string, ReturnType<typeof ajv.compile>>()

function assertEvents (t: Test, where: string, path: string[], body: string): void {
  const pointer = (segments: Array<string | number>) => `${DOC_ID}#/${segments.map((s) => escape(String(s))).join('/')}`
  const validateEvent = ajv.getSchema(pointer(path))
  const schema = path.reduce((node, key) => node?.[key], doc)
  if (!validateEvent || !schema) {
    t.fail(`${where}: no event schema at ${path.join('/')}`)
    return
  }
  // Each branch, inline or a component (a discriminated union's members are components), and where it is.
  const members: any[] = schema.anyOf ?? schema.oneOf ?? [schema]
  const branches = members.map((member, i) => member.$ref === undefined
    ? { node: member, at: [...path, ...(schema.anyOf ? ['anyOf', i] : schema.oneOf ? ['oneOf', i] : [])] }
    : { node: (member.$ref as string).slice(2).split('/').reduce((node: any, key: string) => node?.[key], doc), at: (member.$ref as string).slice(2).split('/') })
  const events = parseSse(body)
  t.ok(events.length > 0, `${where}: the stream has events`)
  for (const [i, event] of events.entries()) {
    const valid = validateEvent(event) as boolean
    if (!t.ok(valid, `${where}: event ${i} (${event.event}) matches the event schema`, valid ? {} : { errors: validateEvent.errors, event })) continue
    const branch = branches.find(({ node }) => [node?.properties?.event?.const, ...(node?.properties?.event?.enum ?? [])].includes(event.event))
    if (!branch?.node.properties?.data?.contentSchema) continue
    const contentPath = [...branch.at, 'properties', 'data', 'contentSchema']
    const ref = pointer(contentPath)
    const validateData = contentValidators.get(ref) ?? ajv.compile({ $ref: ref })
    contentValidators.set(ref, validateData)
    const ok = validateData(JSON.parse(event.data)) as boolean
    t.ok(ok, `${where}: event ${i} (${event.event}) data matches its contentSchema`, ok ? {} : { errors: validateData.errors, data: event.data.slice(0, 500) })
  }
}
