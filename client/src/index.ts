/**
 * `@flowport/client`: a typed client for the Flowport API (docs/client.md).
 */
export * from './client.js'
export * from './errors.js'
export type * from './options.js'
export type { StreamState } from './event-stream.js'
export type { FollowOptions } from './follow.js'
export type { WatchRunsOptions } from './watch-runs.js'
export type * from './types.js'
