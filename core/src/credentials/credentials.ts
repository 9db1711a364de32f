/**
 * Credentials at run time. At worker start (main.ts, before the settings are read and before
 * anything polls), `resolveCredentialSettings` replaces every environment variable whose value is
 * `credential:<dotted.path>` by the value at that path, synchronously; a missing file, key or path
 * stops the worker. Steps read values by path with `credentials.get` / `credentials.require`.
 */
import { credentialAt } from './document.js'
import { CredentialsError, MissingCredentialError } from './errors.js'
import { credentialsLocation, readCredentials, unavailable, type CredentialsLocation } from './location.js'
import type { Env } from '../settings.js'

export const CREDENTIAL_PREFIX = 'credential:'

interface Loaded {
  location: CredentialsLocation
  /** The decrypted mapping, or why there is none. */
  data: unknown
  missing?: string
}

let loaded: Loaded | undefined

/** Reads the environment's file when it and its key exist; a wrong key or a modified file throws. */
function load (env: Env): Loaded {
  const location = credentialsLocation(env)
  const missing = unavailable(location, env)
  if (missing !== undefined) return { location, data: {}, missing }
  return { location, data: readCredentials(location, env).toJS() }
}

/**
 * Replaces each `credential:<path>` value of `env` by the credential at that path, and answers
 * whether the file was read and the names of the variables replaced (never their values). All
 * problems are reported together, by variable name, in one error naming each variable and path: a
 * MissingCredentialError, or a CredentialsError when a path is malformed or holds a mapping.
 */
export function resolveCredentialSettings (env: Env = process.env): { location: CredentialsLocation, loaded: boolean, resolved: string[] } {
  loaded = load(env)
  const resolved = resolveIn(env, loaded)
  return { location: loaded.location, loaded: loaded.missing === undefined, resolved }
}

/**
 * The same for `values` (named as the errors should name them, e.g. the API's settings or a
 * file's entries), with the credentials file of `env`, read only when a value refers to it.
 * Changes `values` in place and returns the names it replaced; the step-side `credentials` are
 * left as they were.
 */
export function resolveCredentialReferences (values: Env, env: Env): string[] {
  return Object.values(values).some(isReference) ? resolveIn(values, load(env)) : []
}

const isReference = (value: string | undefined): value is string => value?.startsWith(CREDENTIAL_PREFIX) === true

function resolveIn (target: Env, { location, data, missing }: Loaded): string[] {
  const references = Object.entries(target)
    .filter((entry): entry is [string, string] => isReference(entry[1]))
    .sort(([a], [b]) => a.localeCompare(b))
  const problems: string[] = []
  let onlyMissing = true
  for (const [name, reference] of references) {
    const path = reference.slice(CREDENTIAL_PREFIX.length)
    let value: string | undefined
    try {
      value = missing === undefined ? credentialAt(data, path) : undefined
    } catch (err) {
      if (!(err instanceof CredentialsError)) throw err
      problems.push(`${name}=${reference}: ${err.message}`)
      onlyMissing = false
      continue
    }
    if (value === undefined) problems.push(`${name}=${reference}: ${missing ?? `no value at ${path} in ${location.file}`}`)
    else target[name] = value
  }
  if (problems.length > 0) throw new (onlyMissing ? MissingCredentialError : CredentialsError)(problems.join('; '))
  return references.map(([name]) => name)
}

function current (): Loaded {
  loaded ??= load(process.env)
  return loaded
}

/** Credentials for step code (Node side only), read from the worker's environment's file. */
export const credentials = {
  /** The value at a dotted path as a string; undefined when the path, the file or its key is missing. */
  get (path: string): string | undefined {
    return credentialAt(current().data, path)
  },
  /** The value at a dotted path; a non-retryable MissingCredentialError naming the path when it is missing. */
  require (path: string): string {
    const { data, missing, location } = current()
    const value = credentialAt(data, path)
    if (value !== undefined) return value
    throw new MissingCredentialError(`Required credential ${path} not found: ${missing ?? `no value at ${path} in ${location.file}`}`)
  }
}
