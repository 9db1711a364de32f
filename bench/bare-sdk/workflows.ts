/**
 * The floor of bench/latency.ts: `hello` and `pipeline` written against the bare Temporal SDK
 * (no Flowport runtime, schemas, manifest or trace), run by worker.ts on the same engine.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow'
import type * as activities from './activities.js'

const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '10s' })
const regular = proxyActivities<typeof activities>({ startToCloseTimeout: '10s' })

export async function bareHello (name: string): Promise<string> {
  return (await regular.greet(name)).text
}

export async function barePipeline (stages: number, isLocal: boolean): Promise<number> {
  let value = 0
  for (let i = 0; i < stages; i++) ({ value } = isLocal ? await local.stage(value) : await regular.stage(value))
  return value
}
