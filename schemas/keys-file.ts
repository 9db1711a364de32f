/**
 * The keys file (SERVICE_API_KEYS_FILE, JSON or YAML): named API keys by hash, with their scopes and
 * limits. `npm run openapi` also writes this schema to docs/keys-file.schema.json for editors.
 */
import { Type, type Static } from '@sinclair/typebox'
import { SCOPES, SCOPE_DESCRIPTIONS } from './access.js'

export const KEY_HASH_PATTERN = '^sha256:[0-9a-f]{64}$'

export const KeyEntrySchema = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Names the key in logs, in the engine\'s history (`identity`) and in 403s' }),
  hash: Type.String({ pattern: KEY_HASH_PATTERN, description: 'SHA-256 of the key, as `flowport keys create` writes it; the key itself is never stored' }),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), {
    minItems: 1,
    uniqueItems: true,
    description: SCOPES.map((s) => `${s}: ${SCOPE_DESCRIPTIONS[s]}`).join('; ')
  }),
  catalogs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, description: 'Only runs on these catalogs (task queues); absent: every catalog' })),
  workflows: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, description: 'Only workflows whose name matches one of these patterns (`*` = any characters); absent: every workflow' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'After this instant the key is refused (401)' })),
  rateLimit: Type.Optional(Type.Integer({ minimum: 0, description: 'Requests per SERVICE_RATE_LIMIT_WINDOW_MS for this key (0: unlimited); absent: SERVICE_RATE_LIMIT_MAX' }))
}, { additionalProperties: false })

/** Shortest run-token signing secret (HS256 wants at least 256 bits); SERVICE_RUN_TOKEN_SECRETS has the same floor. */
export const MIN_RUN_TOKEN_SECRET_LENGTH = 32

export const KeysFileSchema = Type.Object({
  keys: Type.Array(KeyEntrySchema, { description: 'Every key valid at once: rotate by adding the new key, moving clients, then removing the old one' }),
  runTokenSecrets: Type.Optional(Type.Array(Type.String({ minLength: MIN_RUN_TOKEN_SECRET_LENGTH, maxLength: 1024 }), {
    minItems: 1,
    uniqueItems: true,
    description: 'Run-token signing secrets (at least 32 characters each): the first signs, every one verifies. Re-read with the keys, so ' +
      'a secret rotates without a restart: add the new one second, let every replica read it, move it first, drop the old one once the ' +
      'tokens it signed have expired. Present, it replaces SERVICE_RUN_TOKEN_SECRETS. It is a secret: keep the file readable by Flowport only'
  }))
}, {
  title: 'Flowport keys file',
  additionalProperties: false
})

export type KeyEntry = Static<typeof KeyEntrySchema>
export type KeysFile = Static<typeof KeysFileSchema>

/** Where `npm run openapi` writes the schema for editors and validators. */
export const keysFileSchemaUrl = new URL('../docs/keys-file.schema.json', import.meta.url)

export const keysFileSchemaText = () => `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...KeysFileSchema }, null, 2)}\n`
