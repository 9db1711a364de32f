import type { Config } from '../../../schemas/config.js'
import type { Runs } from '../runs/index.js'
import type { Control } from '../control/index.js'
import type { Engine } from '../engine/index.js'
import type { Catalogs } from '../catalogs/index.js'
import type { Payloads } from '../payloads/index.js'
import type { Webhooks } from '../webhooks/index.js'

export interface StartDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'workflow' | 'get'>
  payloads: Pick<Payloads, 'uploadedInput' | 'decodeFirstValue'>
  webhooks: Pick<Webhooks, 'target' | 'startDelivery' | 'abandonDelivery'>
  runs: Pick<Runs, 'describeRun' | 'waitForCloseEvent' | 'readRunStart' | 'resultOf'>
  control: Pick<Control, 'updateFailure'>
  config: Pick<Config, 'SERVICE_CATALOG_ID' | 'SERVICE_RUN_TIMEOUT_MS' | 'SERVICE_RUN_MAX_TIMEOUT_MS' | 'SERVICE_PAYLOAD_REF_THRESHOLD_BYTES'>
  /** The fixed segments of the routes under /workflow/ (`catalog`, `runs`, …): refused as workflow ids. */
  reservedIds: ReadonlySet<string>
}
