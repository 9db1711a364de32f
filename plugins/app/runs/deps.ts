/**
 * What the runs service is built from (RunsDeps) and what each of its functions takes first (RunsContext): the
 * service's dependencies and its two caches.
 */
import type { TraceStore } from '@flowport/core/trace'
import type { WebhookRunMemo } from '@flowport/core/contract'
import type { Config } from '../../../schemas/config.js'
import type { WebhookDelivery } from '../../../schemas/workflow.js'
import type { Engine } from '../engine/index.js'
import type { Catalogs } from '../catalogs/index.js'
import type { Payloads } from '../payloads/index.js'
import type { ClosedRuns } from './closed-runs.js'
import type { LongHistories } from './long-histories.js'
import type { RunRef } from '@flowport/core/run'

export interface RunsDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  /** Large values (docs/large-payloads.md): a payload list's first value (a LargeValue when held by reference), and a value inline or as its download. */
  payloads: Pick<Payloads, 'decodeFirstValue' | 'inlineOrLink'>
  /** The trace destinations workers write (docs/traces.md); null when tracing is off. */
  traces: TraceStore | null
  /** Where the delivery of a run's completion webhook stands (docs/webhooks.md); `memo` is the run's. */
  deliveryOf: (run: RunRef, memo: WebhookRunMemo, signal?: AbortSignal) => Promise<WebhookDelivery>
  config: Pick<Config, 'SERVICE_CLOSED_RUN_CACHE_ENTRIES' | 'SERVICE_CLOSED_RUN_CACHE_BYTES' | 'SERVICE_CLOSED_RUN_CACHE_TTL_MS'>
}

/** The service's dependencies and its two caches. */
export type RunsContext = Omit<RunsDeps, 'config'> & { closedRuns: ClosedRuns, longHistories: LongHistories }
