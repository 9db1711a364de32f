/**
 * What the parts of the runs concept are given: the engine, the service's two caches, and the few
 * functions of other concepts they call (catalogs, payloads, traces, webhooks).
 */
import type { TraceStore } from '@flowport/core/trace'
import type { WebhookRunMemo } from '@flowport/core/contract'
import type { WebhookDelivery } from '../../../schemas/workflow.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Payloads } from '../payloads/payloads.js'
import type { ClosedRuns } from './closed-runs.js'
import type { LongHistories } from './long-histories.js'
import type { RunRef } from './run-history.js'

export interface RunsContext {
  engine: Engine
  closedRuns: ClosedRuns
  longHistories: LongHistories
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  /** Large values (docs/large-payloads.md): a payload list's first value (a LargeValue when held by reference), and a value inline or as its download. */
  payloads: Pick<Payloads, 'decodeFirstValue' | 'inlineOrLink'>
  /** The trace destinations workers write (docs/traces.md); null when tracing is off. */
  traces: TraceStore | null
  /** Where the delivery of a run's completion webhook stands (docs/webhooks.md); `memo` is the run's. */
  deliveryOf: (run: RunRef, memo: WebhookRunMemo, signal?: AbortSignal) => Promise<WebhookDelivery>
}
