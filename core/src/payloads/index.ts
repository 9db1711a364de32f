/**
 * `@flowport/core/payloads`: large payloads by reference (the claim check), loaded by the worker
 * and the API alike. docs/large-payloads.md describes the references, the settings and the bucket.
 */
export { payloadSettingsFrom, PayloadEnvProperties, type PayloadEnv, type PayloadSettings } from './settings.js'
export { PayloadStore, PayloadStorageError, PayloadMissingError, type StoredObject } from './store.js'
export { ClaimCheckCodec, referenceOf, REFERENCE_METADATA_KEY, type PayloadReference } from './codec.js'
