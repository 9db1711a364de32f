/**
 * What the parts of the runs concept are given: the engine, the two caches the runs service owns,
 * and the few functions of other concepts they need (catalogs, payloads, traces, webhooks), each
 * declared here as the small interface the parts call.
 */
import type { temporal } from '@temporalio/proto'
import type { TraceStore } from '@flowport/worker/trace'
import type { WebhookRunMemo } from '@flowport/worker/contract'
import type { WebhookDelivery } from '../../../schemas/workflow.js'
import type { PayloadLink } from '../../../schemas/payloads.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/index.js'
import type { ClosedRuns } from './closed-runs.js'
import type { LongHistories } from './long-histories.js'
import type { RunRef } from './run-history.js'

/** Large values (plugins/app/payloads/): decoding a payload list, and answering a value inline or as its download. */
export interface RunPayloads {
  /** The first value of a payload list; absent or `undefined` becomes null, a large value held by reference a LargeValue. */
  decodeFirst: (payloads: temporal.api.common.v1.IPayloads | null | undefined) => Promise<unknown>
  inlineOrLink: (value: unknown) => Promise<{ value: unknown, link?: PayloadLink }>
}

/** The trace destinations workers write (docs/traces.md). */
export type RunTraces = Pick<TraceStore, 'destinations' | 'hasRemote' | 'readRemote' | 'readLocal' | 'readAttempts' | 'settings'>

/** Where the delivery of a run's completion webhook stands (docs/webhooks.md); `memo` is the run's. */
export type DeliveryOf = (run: RunRef, memo: WebhookRunMemo, signal?: AbortSignal) => Promise<WebhookDelivery>

export interface RunsContext {
  engine: Engine
  closedRuns: ClosedRuns
  longHistories: LongHistories
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  payloads: RunPayloads
  /** Null when tracing is off. */
  traces: RunTraces | null
  deliveryOf: DeliveryOf
}
