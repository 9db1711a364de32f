/** The API's settings: the app receives them from the caller, so tests and the dev stack pass their own. */
import fp from 'fastify-plugin'
import { isProduction, loadSettings } from '@flowport/core/settings'
import { ConfigSchema, type Config } from '../../../schemas/config.js'
import { WEBHOOK_SECRET_PATTERN } from '../../../schemas/workflow.js'
import { MIN_RUN_TOKEN_SECRET_LENGTH } from '../../../schemas/keys-file.js'
import { ConfigError } from '../../../lib/config-error.js'
import { runTokenSecrets } from '../../../lib/run-token-secrets.js'
import { resolveSettingCredentials } from './credential-settings.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config }
}

export default fp<{ config: Config }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'config' })

/** Shortest SERVICE_API_AUTH_TOKEN a production start accepts. */
export const MIN_PRODUCTION_TOKEN_LENGTH = 16

/** `credential:` settings resolved first; a ConfigError names the variable at fault. */
export function loadConfig (given: Record<string, string | undefined> = process.env): Config {
  const { env, hide } = resolveSettingCredentials(ConfigSchema, given)
  const result = loadSettings(ConfigSchema, env, (message) => new ConfigError(hide(message)))
  if (result.SERVICE_RUN_TIMEOUT_MS > result.SERVICE_RUN_MAX_TIMEOUT_MS) {
    throw new ConfigError('Invalid setting SERVICE_RUN_TIMEOUT_MS: must not exceed SERVICE_RUN_MAX_TIMEOUT_MS')
  }
  if (result.SERVICE_HEADERS_TIMEOUT_MS > result.SERVICE_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid setting SERVICE_HEADERS_TIMEOUT_MS: must not exceed SERVICE_REQUEST_TIMEOUT_MS')
  }
  checkAuthSettings(result, env.SERVICE_API_AUTH_TOKEN)
  // Checked here rather than by a schema pattern, whose message would repeat the secret.
  if (result.SERVICE_WEBHOOK_SECRET !== undefined && !new RegExp(WEBHOOK_SECRET_PATTERN).test(result.SERVICE_WEBHOOK_SECRET)) {
    throw new ConfigError('Invalid setting SERVICE_WEBHOOK_SECRET: must be whsec_ followed by the base64 of 24 to 64 random bytes (the value is not shown)')
  }
  checkAccessSettings(result)
  return result
}

/** Auth fails closed: a set token always turns auth on; production refuses a blank or short one. */
function checkAuthSettings (config: Config, rawToken: string | undefined): void {
  const token = config.SERVICE_API_AUTH_TOKEN
  const production = isProduction(config.NODE_ENV)
  if (token !== undefined && config.SERVICE_API_AUTH_DISABLED) {
    throw new ConfigError('Invalid settings: SERVICE_API_AUTH_DISABLED=true contradicts a set SERVICE_API_AUTH_TOKEN (a set token always turns auth on): unset one of them')
  }
  if (production && rawToken !== undefined && rawToken.trim() === '') {
    throw new ConfigError(`Invalid setting SERVICE_API_AUTH_TOKEN: empty or only whitespace; in production set a token of at least ${MIN_PRODUCTION_TOKEN_LENGTH} characters (or unset it and set SERVICE_API_AUTH_DISABLED=true)`)
  }
  if (token !== undefined && /\s/.test(token)) {
    throw new ConfigError('Invalid setting SERVICE_API_AUTH_TOKEN: must not contain whitespace (it is sent as Authorization: Bearer <token>)')
  }
  if (production && token !== undefined && token.length < MIN_PRODUCTION_TOKEN_LENGTH) {
    throw new ConfigError(`Invalid setting SERVICE_API_AUTH_TOKEN: must be at least ${MIN_PRODUCTION_TOKEN_LENGTH} characters in production (it has ${token.length})`)
  }
  if (production && token === undefined && config.SERVICE_API_KEYS_FILE === undefined && !config.SERVICE_API_AUTH_DISABLED) {
    throw new ConfigError('Missing setting SERVICE_API_AUTH_TOKEN or SERVICE_API_KEYS_FILE: one is required when NODE_ENV=production (or set SERVICE_API_AUTH_DISABLED=true)')
  }
}

/** The access-control settings (docs/access-control.md); messages never repeat a secret. */
function checkAccessSettings (config: Config): void {
  if (config.SERVICE_API_KEYS_FILE !== undefined && config.SERVICE_API_AUTH_DISABLED) {
    throw new ConfigError('Invalid settings: SERVICE_API_AUTH_DISABLED=true contradicts a set SERVICE_API_KEYS_FILE: unset one of them')
  }
  if (config.SERVICE_API_QUERY_KEYS_ALLOWED && isProduction(config.NODE_ENV)) {
    throw new ConfigError('Invalid setting SERVICE_API_QUERY_KEYS_ALLOWED: a development switch, refused when NODE_ENV=production (keys in URLs leak into logs)')
  }
  checkRedisUrl(config.SERVICE_RATE_LIMIT_REDIS_URL)
  runTokenSecrets(config).forEach((secret, i) => {
    if (secret.length < MIN_RUN_TOKEN_SECRET_LENGTH) {
      throw new ConfigError(`Invalid setting SERVICE_RUN_TOKEN_SECRETS: secret ${i + 1} has ${secret.length} characters, at least ${MIN_RUN_TOKEN_SECRET_LENGTH} are needed`)
    }
  })
}

/** The message never repeats the URL: it may hold the Redis password. */
function checkRedisUrl (url: string | undefined): void {
  if (url === undefined) return
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    throw new ConfigError('Invalid setting SERVICE_RATE_LIMIT_REDIS_URL: not a URL; expected redis://[user:password@]host:port[/db] or rediss:// (the value is not shown)')
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new ConfigError(`Invalid setting SERVICE_RATE_LIMIT_REDIS_URL: the scheme must be redis: or rediss:, not ${protocol}`)
  }
}
