/** Credentials out of the log, in two passes because neither is enough: URLs by name and value, every line by value in any encoding. */
import { unescape } from 'node:querystring'
import type { FastifyServerOptions } from 'fastify'

export const REDACTED = '[redacted]'

const CREDENTIAL_NAME = /token|key|secret|passw|pwd|auth|credential|session|cookie|signature/
/** Parameters of this API that match the pattern but are opaque cursors, useful when reading a log. */
const NOT_CREDENTIALS = new Set(['pagetoken'])
/** Secrets shorter than this would blank out ordinary words of every line; only the URL/header pass covers them. */
const MIN_SECRET_LENGTH_IN_TEXT = 4

/** Repeated, so double encoding does not hide a name. */
export function decodeFully (text: string): string {
  let current = text
  for (let i = 0; i < 5; i++) {
    const next = unescape(current.replace(/\+/g, ' '))
    if (next === current) return current
    current = next
  }
  return current
}

export function isCredentialName (name: string): boolean {
  const decoded = decodeFully(name).toLowerCase()
  return !NOT_CREDENTIALS.has(decoded) && CREDENTIAL_NAME.test(decoded)
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Each character as itself, JSON-escaped or percent-encoded (once or twice): however a client encoded it, the logged form matches. */
function anyEncodingOf (secret: string): string {
  return [...secret].map((ch) => {
    const hex = [...Buffer.from(ch)].map((b) => b.toString(16).padStart(2, '0'))
    const forms = new Set([escapeRegExp(ch), escapeRegExp(JSON.stringify(ch).slice(1, -1)), hex.map((h) => `%${h}`).join(''), hex.map((h) => `%25${h}`).join('')])
    return `(?:${[...forms].join('|')})`
  }).join('')
}

export type SecretSource = () => readonly string[] | undefined

export class Redactor {
  readonly #secrets = new Set<string>()
  readonly #sources: Array<{ read: SecretSource, last: readonly string[] | undefined }> = []
  #inText: RegExp | undefined

  constructor (secrets: Array<string | undefined>) {
    this.#add(secrets)
  }

  /** A secret the source drops stays redacted: other replicas may sign with it until they re-read. */
  follow (source: SecretSource): void {
    this.#sources.push({ read: source, last: undefined })
  }

  #add (secrets: ReadonlyArray<string | undefined>): void {
    const before = this.#secrets.size
    for (const s of secrets) if (typeof s === 'string' && s !== '') this.#secrets.add(s)
    if (this.#secrets.size === before) return
    const patterns = [...this.#secrets].filter((s) => s.length >= MIN_SECRET_LENGTH_IN_TEXT).map(anyEncodingOf)
    this.#inText = patterns.length === 0 ? undefined : new RegExp(patterns.join('|'), 'gi')
  }

  #refresh (): void {
    for (const source of this.#sources) {
      const current = source.read()
      if (current === source.last) continue
      source.last = current
      if (current !== undefined) this.#add(current)
    }
  }

  holdsSecret (component: string): boolean {
    this.#refresh()
    if (this.#secrets.size === 0) return false
    const decoded = decodeFully(component)
    for (const s of this.#secrets) if (decoded.includes(s) || component.includes(s)) return true
    return false
  }

  url (url: string): string {
    const q = url.indexOf('?')
    const path = q < 0 ? url : url.slice(0, q)
    const safePath = path.split('/').map((segment) => (this.holdsSecret(segment) ? REDACTED : segment)).join('/')
    if (q < 0) return safePath
    const query = url.slice(q + 1).replace(/[^&;]+/g, (pair) => {
      const eq = pair.indexOf('=')
      const name = eq < 0 ? pair : pair.slice(0, eq)
      if (this.holdsSecret(name)) return REDACTED
      if (eq < 0) return pair
      return isCredentialName(name) || this.holdsSecret(pair.slice(eq + 1)) ? `${name}=${REDACTED}` : pair
    })
    return `${safePath}?${query}`
  }

  text (line: string): string {
    this.#refresh()
    return this.#inText ? line.replace(this.#inText, REDACTED) : line
  }
}

type LoggerOption = FastifyServerOptions['logger']
type LoggerOptions = Exclude<LoggerOption, boolean | undefined>

export function withRedaction (logger: LoggerOption, redactor: Redactor): LoggerOption {
  if (logger === false || logger === undefined) return logger
  const options: LoggerOptions = logger === true ? {} : logger
  const hooks = options.hooks ?? {}
  const write = hooks.streamWrite
  return {
    ...options,
    serializers: {
      ...options.serializers,
      req: (req) => ({ method: req.method, url: redactor.url(req.url), remoteAddress: req.ip })
    },
    hooks: { ...hooks, streamWrite: (line: string) => redactor.text(write ? write(line) : line) }
  }
}
