/**
 * The valid keys: SERVICE_API_AUTH_TOKEN (key `default`, every scope) and those of the keys file,
 * and the run-token secrets the file may list (plugins/app/access/run-tokens.ts reads them from here).
 * The file is re-read when it changes (the directory is watched: editors and `flowport keys create`
 * replace it by renaming) and on SIGHUP, with no restart. A file that becomes invalid leaves the
 * last good set in place and the log says why; an invalid file at start stops the start.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { KeysFile } from '../../../schemas/keys-file.js'
import { findKey, keyFromEntry, KeysFileError, parseKeysFile, TOKEN_KEY_ID, tokenKey, type ApiKey } from './keys.js'

interface FileContent { keys: ApiKey[], runTokenSecrets?: readonly string[] }

/** Reads and checks the keys file; throws a KeysFileError naming the file and the fault. */
export function readKeys (file: string, token: string | undefined): FileContent {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new KeysFileError(`Cannot read SERVICE_API_KEYS_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  let parsed: KeysFile
  try {
    parsed = parseKeysFile(text)
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

export class KeyStore {
  #keys: ApiKey[]
  #runTokenSecrets: readonly string[] | undefined
  #watcher: FSWatcher | undefined
  #timer: NodeJS.Timeout | undefined
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

  #read (): FileContent {
    const { file, token } = this.options
    const content: FileContent = file === undefined ? { keys: [] } : readKeys(file, token)
    return token === undefined ? content : { ...content, keys: [tokenKey(token), ...content.keys] }
  }

  /** Re-reads the file; on failure keeps the last good set. Returns whether the new set is in place. */
  reload (why: string): boolean {
    try {
      ({ keys: this.#keys, runTokenSecrets: this.#runTokenSecrets } = this.#read())
      // The secrets are counted, never shown.
      this.options.log.info({ keys: this.#keys.map((k) => k.id), runTokenSecrets: this.#runTokenSecrets?.length ?? 0, why }, 'API keys reloaded')
      return true
    } catch (err) {
      this.options.log.error({ why, reason: (err as Error).message }, 'API keys file rejected: the previous keys stay valid')
      return false
    }
  }

  /** Follows the file's changes and SIGHUP until `stop()`. */
  watch (): void {
    const { file } = this.options
    if (file === undefined) return
    const path = resolve(file)
    this.#watcher = watch(dirname(path), (_event, name) => {
      if (name !== null && name !== basename(path)) return
      clearTimeout(this.#timer)
      this.#timer = setTimeout(() => { this.reload('file changed') }, RELOAD_DELAY_MS)
    })
    process.on('SIGHUP', this.#onHangup)
  }

  stop (): void {
    clearTimeout(this.#timer)
    this.#watcher?.close()
    process.off('SIGHUP', this.#onHangup)
  }
}
