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
  catalogs: Pick<Catalogs, 'get' | 'workersPolling' | 'clientName' | 'ofQueue' | 'typeFiltered'>
  payloads: Pick<Payloads, 'decodeFirstValue' | 'inlineOrLink'>
  /** Null when tracing is off (docs/traces.md). */
  traces: TraceStore | null
  /** `memo` is the run's (docs/webhooks.md). */
  deliveryOf: (run: RunRef, memo: WebhookRunMemo, signal?: AbortSignal) => Promise<WebhookDelivery>
  config: Pick<Config, 'SERVICE_CLOSED_RUN_CACHE_ENTRIES' | 'SERVICE_CLOSED_RUN_CACHE_BYTES' | 'SERVICE_CLOSED_RUN_CACHE_TTL_MS'>
}

export type RunsContext = Omit<RunsDeps, 'config'> & { closedRuns: ClosedRuns, longHistories: LongHistories }
