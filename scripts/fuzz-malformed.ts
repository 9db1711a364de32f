/**
 * The malformed pass of `npm run fuzz` (docs/quality.md, "Fuzzing"): schemathesis generates
 * strings a UTF-8 client can send; this pass adds what it cannot (a lone surrogate's bytes, bytes
 * that are no UTF-8 at all) and makes sure each kind of hostile value reaches each query and path
 * parameter of every read, rather than whichever the generator happens to pick.
 */
import { answerOf, faultLines } from './fuzz-neighbour.js'

/** A hostile value, already percent-encoded for a URL (raw bytes are what a careless client sends). */
interface Malformed { kind: string, encoded: string }

const enc = encodeURIComponent
const MALFORMED: Malformed[] = [
  { kind: 'NUL', encoded: enc('a\u0000b') },
  { kind: 'NUL alone', encoded: '%00' },
  { kind: 'C0 control', encoded: enc('a\u0001\u001fb') },
  { kind: 'escape sequence', encoded: enc('\u001b[31mred') },
  { kind: 'line break', encoded: enc('a\r\nb') },
  { kind: 'DEL and C1', encoded: enc('a\u007f\u0085\u009fb') },
  { kind: 'quotes and backslash', encoded: enc('a\'b"c\\d`') },
  { kind: 'unpaired high surrogate', encoded: `a${'%ED%A0%80'}b` },
  { kind: 'unpaired low surrogate', encoded: `a${'%ED%B0%80'}b` },
  { kind: 'bytes that are no UTF-8', encoded: 'a%FF%FEb%C0%80' },
  { kind: 'long (1001)', encoded: 'a'.repeat(1001) },
  { kind: 'long (8192)', encoded: 'a'.repeat(8192) },
  { kind: 'very long (100000)', encoded: 'a'.repeat(100_000) }
]

interface Parameter { name: string, in: string, required?: boolean, example?: unknown, schema?: { examples?: unknown[], default?: unknown } }
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> }

export interface MalformedRequest { kind: string, parameter: string, method: string, route: string, url: string }

/** A parameter's value when it is not the one under test: its example, else its default. */
function sample (parameter: Parameter): string | undefined {
  const value = parameter.example ?? parameter.schema?.examples?.[0] ?? parameter.schema?.default
  return value === undefined ? undefined : String(value)
}

/** Every (read operation, query or path parameter, malformed value) of the document, as a URL path and query. */
export function malformedRequests (document: Document): MalformedRequest[] {
  const requests: MalformedRequest[] = []
  for (const [template, operations] of Object.entries(document.paths)) {
    const parameters = operations.get?.parameters?.filter((p) => p.in === 'query' || p.in === 'path') ?? []
    for (const target of parameters) {
      for (const { kind, encoded } of MALFORMED) {
        const value = (p: Parameter) => p === target ? encoded : enc(sample(p) ?? 'fuzz')
        const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => value(parameters.find((p) => p.in === 'path' && p.name === name)!))
        const query = parameters.filter((p) => p.in === 'query' && (p === target || p.required === true)).map((p) => `${enc(p.name)}=${value(p)}`)
        requests.push({ kind, parameter: `${target.in} ${target.name}`, method: 'GET', route: template, url: query.length === 0 ? path : `${path}?${query.join('&')}` })
      }
    }
  }
  return requests
}

export interface MalformedReport {
  sent: number
  byStatus: Record<string, number>
  /** A 5xx, or no answer within the deadline. */
  faults: Array<MalformedRequest & { status: number, body: string }>
  /** Parameters that took a malformed value (a 2xx): allowed where the value is free text, listed so that it is seen. */
  accepted: Record<string, string[]>
}

const REQUEST_TIMEOUT_MS = 15_000

/** Sends every malformed request of the document, one at a time (the fuzzer runs beside it). */
export async function sendMalformed (base: string, token: string | undefined, document: Document): Promise<MalformedReport> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  const report: MalformedReport = { sent: 0, byStatus: {}, faults: [], accepted: {} }
  for (const request of malformedRequests(document)) {
    const { status, text: body } = await answerOf(`${base}${request.url}`, { headers }, REQUEST_TIMEOUT_MS)
    report.sent++
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1
    if (status >= 200 && status < 300) (report.accepted[`${request.method} ${request.route} ${request.parameter}`] ??= []).push(request.kind)
    if (status === 0 || status >= 500) report.faults.push({ ...request, url: request.url.slice(0, 300), status, body: body.slice(0, 500) })
  }
  return report
}

export function describeMalformed (report: MalformedReport): { passed: boolean, lines: string[] } {
  const lines = faultLines(report.byStatus, (statuses) => `malformed values: ${report.sent} requests (${statuses}), ${report.faults.length} failed`,
    report.faults, (fault) => `${fault.kind} in ${fault.parameter}: ${fault.method} ${fault.url} → ${fault.status === 0 ? 'no answer' : fault.status} ${fault.body}`)
  for (const [where, kinds] of Object.entries(report.accepted)) lines.push(`  accepted (2xx) by ${where}: ${kinds.join(', ')}`)
  return { passed: report.faults.length === 0 && report.sent > 0, lines }
}
