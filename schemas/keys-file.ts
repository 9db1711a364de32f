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

export const KeysFileSchema = Type.Object({
  keys: Type.Array(KeyEntrySchema, { description: 'Every key valid at once: rotate by adding the new key, moving clients, then removing the old one' })
}, {
  title: 'Flowport keys file',
  additionalProperties: false
})

export type KeyEntry = Static<typeof KeyEntrySchema>
export type KeysFile = Static<typeof KeysFileSchema>

/** Where `npm run openapi` writes the schema for editors and validators. */
export const keysFileSchemaUrl = new URL('../docs/keys-file.schema.json', import.meta.url)

export const keysFileSchemaText = () => `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...KeysFileSchema }, null, 2)}\n`
