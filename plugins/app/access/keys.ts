/**
 * Keys are stored as a SHA-256 hash: 32 random bytes need no slow salted hash. Recognition compares
 * with every key in constant time without stopping at a match, so timing says nothing of which matched.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ValidateFunction } from 'ajv'
import { parse as parseYaml } from 'yaml'
import { ConfigError } from '../../../lib/config-error.js'
import { validatorFor } from '../../../lib/json-schema.js'
import { KeysFileSchema, type KeyEntry, type KeysFile } from '../../../schemas/keys-file.js'
import { SCOPES, type Scope } from '../../../schemas/access.js'

export const TOKEN_KEY_ID = 'default'

export interface ApiKey {
  id: string
  digest: Buffer
  scopes: ReadonlySet<Scope>
  catalogs?: readonly string[]
  workflows?: readonly RegExp[]
  workflowPatterns?: readonly string[]
  expiresAt?: number
  rateLimit?: number
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const compilePattern = (pattern: string) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's')

const digest = (value: string) => createHash('sha256').update(value).digest()

export const hashKey = (key: string) => `sha256:${digest(key).toString('hex')}`

/** No dots, so never mistaken for a run token. */
export const generateKey = () => `fpk_${randomBytes(32).toString('base64url')}`

export function tokenKey (token: string): ApiKey {
  return { id: TOKEN_KEY_ID, digest: digest(token), scopes: new Set(SCOPES) }
}

export function keyFromEntry (entry: KeyEntry): ApiKey {
  return {
    id: entry.id,
    digest: Buffer.from(entry.hash.slice('sha256:'.length), 'hex'),
    scopes: new Set(entry.scopes),
    catalogs: entry.catalogs,
    workflows: entry.workflows?.map(compilePattern),
    workflowPatterns: entry.workflows,
    expiresAt: entry.expiresAt === undefined ? undefined : Date.parse(entry.expiresAt),
    rateLimit: entry.rateLimit
  }
}

/** `equal` is timingSafeEqual; test/access-keys.test.ts counts its calls. */
export function findKey (keys: readonly ApiKey[], given: string, equal: (a: Buffer, b: Buffer) => boolean = timingSafeEqual): ApiKey | undefined {
  const presented = digest(given)
  let found: ApiKey | undefined
  for (const key of keys) {
    if (equal(presented, key.digest) && found === undefined) found = key
  }
  return found
}

export class KeysFileError extends ConfigError {
  override name = this.constructor.name
}

/** YAML, of which JSON is a subset. `resolveSecrets` replaces `credential:` references before the check. */
export function parseKeysFile (text: string, resolveSecrets: (secrets: string[]) => string[] = (s) => s): KeysFile {
  let value: unknown
  try {
    value = parseYaml(text, { uniqueKeys: true })
  } catch (err) {
    throw new KeysFileError(`not valid JSON or YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  const secrets = (value as { runTokenSecrets?: unknown } | null)?.runTokenSecrets
  if (Array.isArray(secrets) && secrets.every((s) => typeof s === 'string')) (value as { runTokenSecrets: string[] }).runTokenSecrets = resolveSecrets(secrets)
  // Compiled on the first keys file read: an API with a single token never holds it (about 0.1 MiB of heap).
  const validateFile = validatorFor(KeysFileSchema) as ValidateFunction<KeysFile>
  if (!validateFile(value)) {
    const first = validateFile.errors?.[0]
    throw new KeysFileError(`${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}${first?.params && 'additionalProperty' in first.params ? ` (${String(first.params.additionalProperty)})` : ''}`)
  }
  const seen = new Set<string>()
  for (const entry of value.keys) {
    if (seen.has(entry.id)) throw new KeysFileError(`key id ${entry.id} appears twice`)
    seen.add(entry.id)
  }
  return value
}
