/**
 * The keys file is re-read when its content changes and on SIGHUP, with no restart. The directory
 * is watched, not the name, and every event leads to a read compared by SHA-256: editors rename a
 * new file over it, others write in place, and Kubernetes swaps a `..data` symlink, an event that
 * names neither the file nor its target. A poll every KEYS_POLL_MS covers network mounts (no
 * events) and links into other directories. An invalid file keeps the last good set (logged once
 * per content); at start it stops the start.
 */
import { createHash } from 'node:crypto'
import { readFileSync, watch, type FSWatcher } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import { resolveCredentialReferences } from '@flowport/core/credentials'
import type { KeysFile } from '../../../schemas/keys-file.js'
import { findKey, keyFromEntry, KeysFileError, parseKeysFile, TOKEN_KEY_ID, tokenKey, type ApiKey } from './keys.js'

interface FileContent { keys: ApiKey[], runTokenSecrets?: readonly string[] }

function readText (file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    throw new KeysFileError(`Cannot read SERVICE_API_KEYS_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex')
const UNREADABLE = 'unreadable'

/** Resolved like the settings (plugins/external/config/credential-settings.ts), at each read. */
function resolveSecrets (secrets: string[]): string[] {
  const named: Record<string, string | undefined> = Object.fromEntries(secrets.map((secret, i) => [`runTokenSecrets[${i}]`, secret]))
  resolveCredentialReferences(named, process.env)
  return secrets.map((_, i) => named[`runTokenSecrets[${i}]`]!)
}

export function parseKeys (file: string, text: string, token: string | undefined): FileContent {
  let parsed: KeysFile
  try {
    parsed = parseKeysFile(text, resolveSecrets)
  } catch (err) {
    throw new KeysFileError(`Invalid SERVICE_API_KEYS_FILE ${file}: ${(err as Error).message}`)
  }
  if (token !== undefined && parsed.keys.some((k) => k.id === TOKEN_KEY_ID)) {
    throw new KeysFileError(`Invalid SERVICE_API_KEYS_FILE ${file}: key id ${TOKEN_KEY_ID} is SERVICE_API_AUTH_TOKEN's; name the key otherwise`)
  }
  return { keys: parsed.keys.map(keyFromEntry), runTokenSecrets: parsed.runTokenSecrets }
}

const RELOAD_DELAY_MS = 50
const KEYS_POLL_MS = 5000

export class KeyStore {
  #keys: ApiKey[]
  #runTokenSecrets: readonly string[] | undefined
  /** Taken or rejected: an unchanged file is not parsed again. */
  #seen: string | undefined
  #watcher: FSWatcher | undefined
  #timer: NodeJS.Timeout | undefined
  #poll: NodeJS.Timeout | undefined
  readonly #onHangup = () => { this.reload('SIGHUP') }

  constructor (readonly options: { file?: string, token?: string, log: Pick<FastifyBaseLogger, 'info' | 'error'> }) {
    ({ keys: this.#keys, runTokenSecrets: this.#runTokenSecrets } = this.#read())
  }

  get enabled () { return this.#keys.length > 0 || this.options.file !== undefined }

  get keys (): readonly ApiKey[] { return this.#keys }

  /** A new array after each reload that took. */
  get runTokenSecrets (): readonly string[] | undefined { return this.#runTokenSecrets }

  find (given: string): ApiKey | undefined { return findKey(this.#keys, given) }

  #read (text?: string): FileContent {
    const { file, token } = this.options
    let content: FileContent = { keys: [] }
    if (file !== undefined) {
      this.#seen = UNREADABLE
      text ??= readText(file)
      this.#seen = hashOf(text)
      content = parseKeys(file, text, token)
    }
    return token === undefined ? content : { ...content, keys: [tokenKey(token), ...content.keys] }
  }

  /** A file that became unreadable differs too. */
  #check (why: string): void {
    let text: string | undefined
    try {
      text = readText(this.options.file!)
    } catch { /* reload() reads again and logs why */ }
    if ((text === undefined ? UNREADABLE : hashOf(text)) !== this.#seen) this.reload(why, text)
  }

  reload (why: string, text?: string): boolean {
    try {
      ({ keys: this.#keys, runTokenSecrets: this.#runTokenSecrets } = this.#read(text))
      // The secrets are counted, never shown.
      this.options.log.info({ keys: this.#keys.map((k) => k.id), runTokenSecrets: this.#runTokenSecrets?.length ?? 0, why }, 'API keys reloaded')
      return true
    } catch (err) {
      this.options.log.error({ why, reason: (err as Error).message }, 'API keys file rejected: the previous keys stay valid')
      return false
    }
  }

  watch (): void {
    const { file } = this.options
    if (file === undefined) return
    // Every event: the one that matters may name `..data` or a temporary file.
    this.#watcher = watch(dirname(resolve(file)), () => {
      clearTimeout(this.#timer)
      this.#timer = setTimeout(() => { this.#check('file changed') }, RELOAD_DELAY_MS)
    })
    // An 'error' without a listener would end the process; the poll still follows the file.
    this.#watcher.on('error', (err) => { this.options.log.error({ reason: err.message }, 'Watching the API keys file\'s directory failed: changes are seen by the poll only') })
    this.#poll = setInterval(() => { this.#check('file changed (poll)') }, KEYS_POLL_MS).unref()
    process.on('SIGHUP', this.#onHangup)
  }

  stop (): void {
    clearTimeout(this.#timer)
    clearInterval(this.#poll)
    this.#watcher?.close()
    process.off('SIGHUP', this.#onHangup)
  }
}
