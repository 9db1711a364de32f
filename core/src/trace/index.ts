/**
 * `@flowport/core/trace`: execution traces, written by workers and read by the API.
 * docs/traces.md describes the document, the layout and how traces stay correct across workers.
 */
export * from './schema.js'
export { traceSettingsFrom, TraceEnvProperties, type TraceEnv, type TraceSettings } from './settings.js'
export type { S3Settings } from '../s3.js'
export { TraceStore, TraceStorageError, type Destinations } from './store.js'
export { assembleTrace, capValue } from './assemble.js'
export { readWholeHistory, evaluatorTypes, mayHaveFailedAttempts, type FetchHistoryPage } from './history.js'
export { runKey, traceKey, ATTEMPTS_KEPT } from './layout.js'
