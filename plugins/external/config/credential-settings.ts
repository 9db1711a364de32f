/**
 * `credential:<path>` in the API's settings: each setting of the schema whose value is one gets the
 * value at that dotted path of the environment's encrypted credentials file (NODE_ENV,
 * SERVICE_CREDENTIALS_FILE, SERVICE_CREDENTIALS_KEY_<ENV>), with the worker's resolver, so a
 * reference means the same on both sides. A reference that cannot be resolved stops the start
 * with one line naming the setting and the path, never a value: taken literally, it would be a
 * 20-odd character secret that passes every check.
 */
import { CredentialsError, resolveCredentialReferences } from '@flowport/core/credentials'
import type { TObject } from '@sinclair/typebox'
import { ConfigError } from '../../../lib/config-error.js'

type Env = Record<string, string | undefined>

/**
 * `env` with the schema's `credential:` settings resolved (a copy; `env` is left as it is), and
 * `hide`, which puts the reference back in place of each resolved value in a message (a resolved
 * value that fails its schema is named by its reference, never shown).
 */
export function resolveSettingCredentials (schema: TObject, env: Env): { env: Env, hide: (message: string) => string } {
  const settings: Env = Object.fromEntries(Object.keys(schema.properties).map((name) => [name, env[name]]))
  let resolved: string[]
  try {
    resolved = resolveCredentialReferences(settings, env)
  } catch (err) {
    // server.ts prints a ConfigError's one line.
    if (err instanceof CredentialsError) throw new ConfigError(`${err.name}: ${err.message}`)
    throw err
  }
  const hide = (message: string): string =>
    resolved.reduce((text, name) => text.replaceAll(JSON.stringify(settings[name]), JSON.stringify(env[name])), message)
  return { env: { ...env, ...Object.fromEntries(resolved.map((name) => [name, settings[name]])) }, hide }
}
