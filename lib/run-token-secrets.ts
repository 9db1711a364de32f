import type { Config } from '../schemas/config.js'

/** SERVICE_RUN_TOKEN_SECRETS, comma-separated: the first signs, every one verifies (rotation). */
export function runTokenSecrets (config: Pick<Config, 'SERVICE_RUN_TOKEN_SECRETS'>): string[] {
  return (config.SERVICE_RUN_TOKEN_SECRETS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
}
