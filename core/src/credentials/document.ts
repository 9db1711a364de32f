/**
 * The decrypted credentials: a YAML mapping addressed by dotted paths (`service.api_key`). Parse
 * errors name the line and column only, never the text around them (it may be a secret).
 */
import { isMap, isScalar, parseDocument, visit, YAMLParseError, type Document } from 'yaml'
import { CredentialsError } from './errors.js'

export type CredentialsDocument = Document.Parsed

/** A path's segments; empty segments (`a..b`, a leading or trailing dot) are refused. */
export function pathSegments (path: string): string[] {
  const segments = path.split('.')
  if (path === '' || segments.some((s) => s === '')) throw new CredentialsError(`Invalid credential path "${path}": expected dot-separated names such as service.api_key`)
  return segments
}

/** The YAML text as a document whose top level is a mapping (an empty text is an empty mapping). */
export function parseCredentials (text: string, where: string): CredentialsDocument {
  // prettyErrors sets linePos; the message (which quotes the text) is never used.
  const doc = parseDocument(text, { prettyErrors: true })
  const error = doc.errors[0]
  if (error !== undefined) {
    const at = error instanceof YAMLParseError && error.linePos ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}` : ''
    throw new CredentialsError(`${where} is not valid YAML${at} (${error.code})`)
  }
  if (doc.contents !== null && !isMap(doc.contents)) throw new CredentialsError(`${where} must hold a YAML mapping (names and values) at the top level`)
  return doc
}

/**
 * The value at `path` as a string (numbers and booleans as written); undefined when nothing, null
 * or an empty string is there. A mapping or a list is not a credential: address one of its values.
 */
export function credentialAt (data: unknown, path: string): string | undefined {
  let value = data
  for (const segment of pathSegments(path)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined
    value = (value as Record<string, unknown>)[segment]
  }
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value === 'object') throw new CredentialsError(`The credential path ${path} holds a ${Array.isArray(value) ? 'list' : 'mapping'}, not a single value; address one of its values`)
  return String(value)
}

const hidden = (node: unknown): boolean => isScalar(node) && node.value !== null && node.value !== ''

/** The document with every value replaced by a fixed mask (which hides lengths too); empty ones stay visible. */
export function maskedText (doc: CredentialsDocument): string {
  const copy = doc.clone()
  visit(copy, {
    Pair (_key, pair) {
      if (hidden(pair.value)) pair.value = copy.createNode('********')
    },
    Seq (_key, seq) {
      seq.items = seq.items.map((item) => (hidden(item) ? copy.createNode('********') : item))
    }
  })
  return copy.toString()
}
