/**
 * What starting runs depends on: the engine, the catalogs, the payloads, the webhooks, the slice
 * of settings it reads, and the few things it asks about runs (StartsRuns).
 */
import type { Config } from '../../../schemas/config.js'
import type { WorkflowResult } from '../../../schemas/workflow.js'
import type { Execution, DescribeOptions } from '../../../lib/execution.js'
import type { HistoryEvent } from '../../../lib/close-events.js'
import type { CloseWait, RunRef, timedOut } from '../../../lib/run-history.js'
import type { UpdateAttempt } from '../../../lib/handlers.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Payloads } from '../payloads/payloads.js'
import type { Webhooks } from '../webhooks/webhooks.js'

/** The runs concept, as far as starts need it. */
export interface StartsRuns {
  describe: (options: DescribeOptions) => Promise<Execution>
  /** The run's close event, or `timedOut` once `wait.deadline` passes. */
  waitForCloseEvent: (run: RunRef, wait: CloseWait) => Promise<HistoryEvent | typeof timedOut>
  /** The input the run was started with (from its history). */
  readInput: (run: RunRef, signal?: AbortSignal) => Promise<unknown>
  resultOf: (run: RunRef, input: unknown, closeEvent: HistoryEvent) => Promise<WorkflowResult>
  /** The API error of an update that did not complete. */
  updateFailure: (err: unknown, attempt: UpdateAttempt) => Promise<unknown>
}

export type StartsConfig = Pick<Config, 'SERVICE_CATALOG_ID' | 'SERVICE_RUN_TIMEOUT_MS' | 'SERVICE_RUN_MAX_TIMEOUT_MS'>

export interface StartDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'workflow'>
  payloads: Pick<Payloads, 'uploadedInput' | 'decodeFirstValue'>
  webhooks: Pick<Webhooks, 'target' | 'startDelivery' | 'abandonDelivery'>
  runs: StartsRuns
  config: StartsConfig
}
