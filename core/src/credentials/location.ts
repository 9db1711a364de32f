/**
 * Where an environment's credentials are and what unlocks them: the file
 * `config/credentials/<env>.yml.enc` under the working directory (or SERVICE_CREDENTIALS_FILE),
 * the key in SERVICE_CREDENTIALS_KEY_<ENV>; the environment is NODE_ENV, `development` when unset.
 * Reading decrypts and parses; writing is atomic (a temp file renamed over the old one).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { basename, dirname, join, resolve } from 'node:path'
import { decrypt, encrypt, parseKey } from './cipher.js'
import { parseCredentials, type CredentialsDocument } from './document.js'
import { MissingCredentialError } from './errors.js'
import type { Env } from '../settings.js'

export interface CredentialsLocation {
  environment: string
  /** Absolute path of the encrypted file. */
  file: string
  /** The variable holding the key: SERVICE_CREDENTIALS_KEY_<ENV>. */
  keyVariable: string
}

/** The location for `environment` (default: NODE_ENV, else `development`) and `file` (default: SERVICE_CREDENTIALS_FILE, else the environment's file). */
export function credentialsLocation (env: Env, options: { environment?: string, file?: string } = {}): CredentialsLocation {
  const environment = options.environment || env.NODE_ENV || 'development'
  // Any NODE_ENV works (a worker that uses no credentials must not stop over it): characters other
  // than letters, digits, "_" and "-" become "_" in the file name, and all but letters and digits in the variable.
  const name = environment.toLowerCase().replace(/[^a-z0-9_-]/g, '_')
  const file = resolve(options.file ?? (env.SERVICE_CREDENTIALS_FILE || join('config', 'credentials', `${name}.yml.enc`)))
  return { environment, file, keyVariable: `SERVICE_CREDENTIALS_KEY_${environment.toUpperCase().replace(/[^A-Z0-9]/g, '_')}` }
}

/** Why the location cannot be read (no file, no key), or undefined when both are there. */
export function unavailable (location: CredentialsLocation, env: Env): string | undefined {
  if (!existsSync(location.file)) return `no credentials file at ${location.file} (environment ${location.environment}; SERVICE_CREDENTIALS_FILE overrides the location)`
  if (!env[location.keyVariable]) return `${location.keyVariable} is not set (it holds the key of ${location.file})`
  return undefined
}

/** The key of the location; a MissingCredentialError when its variable is unset. */
export function readKey (location: CredentialsLocation, env: Env): Buffer {
  const text = env[location.keyVariable]
  if (!text) throw new MissingCredentialError(`${location.keyVariable} is not set (it holds the key of ${location.file})`)
  return parseKey(text, location.keyVariable)
}

/** The decrypted document; a MissingCredentialError when the file (checked first) or the key is missing. */
export function readCredentials (location: CredentialsLocation, env: Env, key?: Buffer): CredentialsDocument {
  if (!existsSync(location.file)) throw new MissingCredentialError(unavailable(location, env))
  const plaintext = decrypt(readFileSync(location.file, 'utf8'), key ?? readKey(location, env), { variable: location.keyVariable, file: location.file })
  return parseCredentials(plaintext, location.file)
}

/**
 * Encrypts `text` (checked to be a YAML mapping first) into the location's file: written to a
 * temp file in the same folder (owner-only), flushed, then renamed over the old one, so a crash
 * leaves either the old file or the new one.
 */
export function writeCredentials (location: CredentialsLocation, key: Buffer, text: string): void {
  parseCredentials(text, 'The new credentials')
  const dir = dirname(location.file)
  mkdirSync(dir, { recursive: true })
  const temp = join(dir, `.${basename(location.file)}.${randomUUID()}.tmp`)
  const fd = openSync(temp, 'wx', 0o600)
  try {
    writeSync(fd, encrypt(text, key))
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temp, location.file)
  } catch (err) {
    try { closeSync(fd) } catch { /* already closed */ }
    rmSync(temp, { force: true })
    throw err
  }
}
