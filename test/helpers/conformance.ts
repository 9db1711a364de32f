/**
 * What the client conformance tests (test/client-conformance-*.test.ts) share: the test stack's API
 * with an API key, listening on a port as a client meets it, its two OpenAPI documents written to
 * a work directory, and the rule that every generator warning fails the test unless it is listed.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { build } from './app.js'

export interface ConformanceStack {
  /** The API's base URL (http://127.0.0.1:<port>). */
  base: string
  /** An API key holding every scope (SERVICE_API_AUTH_TOKEN). */
  key: string
  /** A fresh directory for the generated clients, removed at teardown. */
  work: string
  /** Paths of the documents, as served: GET /openapi.json and the typed GET /workflow/catalog/openapi.json. */
  documents: { generic: string, typed: string }
}

export async function conformanceStack (t: Test, name: string): Promise<ConformanceStack> {
  const key = randomBytes(24).toString('base64url')
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: key })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const work = mkdtempSync(join(tmpdir(), `flowport-conformance-${name}-`))
  t.teardown(() => { rmSync(work, { recursive: true, force: true }) })
  const documents = { generic: join(work, 'openapi.json'), typed: join(work, 'catalog-openapi.json') }
  for (const [file, path] of [[documents.generic, '/openapi.json'], [documents.typed, '/workflow/catalog/openapi.json']] as const) {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`)
    writeFileSync(file, await res.text())
  }
  return { base, key, work, documents }
}

/** A warning a generator prints that the test accepts, and why. */
export interface KnownWarning { pattern: RegExp, reason: string }

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g')

/**
 * The warnings in a generator's output (`isWarning` picks the lines) that no entry of `known`
 * matches; each known entry that matched nothing is returned too, so a list does not outlive its cause.
 */
export function unlistedWarnings (output: string, isWarning: (line: string) => boolean, known: KnownWarning[]): { unlisted: string[], unused: string[] } {
  const lines = output.replace(ANSI, '').split('\n').map((line) => line.trim()).filter((line) => line !== '' && isWarning(line))
  const used = new Set<KnownWarning>()
  const unlisted = lines.filter((line) => {
    const match = known.find((k) => k.pattern.test(line))
    if (match) used.add(match)
    return match === undefined
  })
  return { unlisted, unused: known.filter((k) => !used.has(k)).map((k) => `${String(k.pattern)} (${k.reason})`) }
}

/** The last line a conformance script printed: its JSON report. */
export function report (stdout: string): any {
  const last = stdout.trim().split('\n').pop() ?? ''
  try {
    return JSON.parse(last)
  } catch {
    throw new Error(`the script printed no JSON report; its output:\n${stdout.slice(-4000)}`)
  }
}
