/**
 * The valid keys: SERVICE_API_AUTH_TOKEN (key `default`, every scope) and those of the keys file,
 * and the run-token secrets the file may list (plugins/app/access/run-tokens.ts reads them from here).
 * The file is re-read when its content changes, however it was replaced, and on SIGHUP, with no
 * restart. Its directory is watched rather than its name, and any event there leads to a read
 * whose SHA-256 is compared with the last one: editors and `flowport keys create` rename a new file
 * over it, others write in place, and Kubernetes updates a mounted Secret or ConfigMap by renaming
 * a new `..data` symlink over the old one (`keys.json -> ..data/keys.json`), an event that names
 * neither the file nor anything it points to. A poll every KEYS_POLL_MS compares the same hash, for
 * file systems that report no events (network mounts) and a file that is a link into another
 * directory. A file that becomes invalid leaves the last good set in place and the log says why
 * (once per content); an invalid file at start stops the start.
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
/** What `#seen` holds while the file cannot be read: the failure is logged once, not at every poll. */
const UNREADABLE = 'unreadable'

/**
 * `credential:<path>` entries of `runTokenSecrets`, resolved like the settings (plugins/external/config/credential-settings.ts)
 * from the credentials file of this process's environment, at each read.
 */
function resolveSecrets (secrets: string[]): string[] {
  const named: Record<string, string | undefined> = Object.fromEntries(secrets.map((secret, i) => [`runTokenSecrets[${i}]`, secret]))
  resolveCredentialReferences(named, process.env)
  return secrets.map((_, i) => named[`runTokenSecrets[${i}]`]!)
}

/** Checks the keys file's text; throws a KeysFileError naming the file and the fault. */
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

/** Coalesces the bursts of change events one save produces. */
const RELOAD_DELAY_MS = 50
/** The fallback poll: a change no event reported is seen within this. */
const KEYS_POLL_MS = 5000

export class KeyStore {
  #keys: ApiKey[]
  #runTokenSecrets: readonly string[] | undefined
  /** SHA-256 of the content read last (taken or rejected): an unchanged file is not parsed again. */
  #seen: string | undefined
  #watcher: FSWatcher | undefined
  #timer: NodeJS.Timeout | undefined
  #poll: NodeJS.Timeout | undefined
  readonly #onHangup = () => { this.reload('SIGHUP') }

  constructor (readonly options: { file?: string, token?: string, log: Pick<FastifyBaseLogger, 'info' | 'error'> }) {
    ({ keys: this.#keys, runTokenSecrets: this.#runTokenSecrets } = this.#read())
  }

  /** Whether any credential is configured (auth is on). */
  get enabled () { return this.#keys.length > 0 || this.options.file !== undefined }

  get keys (): readonly ApiKey[] { return this.#keys }

  /** The file's `runTokenSecrets` (a new array after each reload that took); undefined when it lists none. */
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

  /** Reloads when the content differs from the last read (a file that became unreadable differs too). */
  #check (why: string): void {
    let text: string | undefined
    try {
      text = readText(this.options.file!)
    } catch { /* reload() reads again and logs why */ }
    if ((text === undefined ? UNREADABLE : hashOf(text)) !== this.#seen) this.reload(why, text)
  }

  /** Re-reads the file (or takes `text`, just read); on failure keeps the last good set. Returns whether the new set is in place. */
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

  /** Follows the file's content and SIGHUP until `stop()`. */
  watch (): void {
    const { file } = this.options
    if (file === undefined) return
    // Every event of the directory: the one that matters may name `..data` or a temporary file.
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
