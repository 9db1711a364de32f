/**
 * What both start benchmarks (bench/start-throughput.ts, bench/run-overhead.ts) drive: the API
 * over keep-alive HTTP and the raw Temporal client on a connection of its own, starting the same
 * `hello` runs with the same engine request.
 */
import { randomUUID } from 'node:crypto'
import { Pool } from 'undici'
import { Client, Connection } from '@temporalio/client'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import { cpuSnapshot, now, othersShare, traceEngineCalls, type EngineCall, type ProcessName } from './measure.js'
import type { Api } from './stack.js'

export interface StartBenchOptions {
  address: string
  namespace: string
  taskQueue: string
  /** Starts per side (split over `rounds` rounds per side). */
  starts: number
  concurrency: number
  /** Quiet pairs of rounds (one round per side each) to collect. */
  rounds: number
  /** Sequential /run samples per side. */
  runSamples: number
  /** A pair of rounds counts only if other work took at most this share of the machine during it. */
  quietShare: number
  /** Time allowed per throughput variant to collect `rounds` quiet pairs. */
  budgetMs: number
  pids: { engine: number, worker: number }
}

export type StartSession = Awaited<ReturnType<typeof openStartSession>>

export async function openStartSession (api: Api, opts: StartBenchOptions) {
  const pids: Record<ProcessName, number> = { engine: opts.pids.engine, worker: opts.pids.worker, api: api.pid, bench: process.pid }
  // A connection of its own, like the API's, so nothing else of the benchmark shares it.
  const connection = await Connection.connect({ address: opts.address })
  /** Engine calls of the raw client, timed (cleared by whoever reads them). */
  const rawCalls: EngineCall[] = []
  traceEngineCalls(connection, rawCalls)
  const raw = new Client({ connection, namespace: opts.namespace })
  const pool = new Pool(api.base, { connections: opts.concurrency, pipelining: 1, keepAliveTimeout: 120_000 })
  const input = { name: 'Ada' }
  const runBody = JSON.stringify({ workflowName: 'hello', input })

  const rawOptions = () => ({
    taskQueue: opts.taskQueue,
    workflowId: randomUUID(),
    args: [input],
    // What plugins/app/run-starter/start-workflow.ts asks for, so both sides make the same engine request.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL
  })

  async function post (path: string, body: string): Promise<unknown> {
    const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body })
    const json = await res.body.json()
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(json)}`)
    return json
  }
  /** One `hello` through `POST /workflow/run`; its workflow id. */
  const apiRun = async (): Promise<string> => {
    const result = await post('/workflow/run', runBody) as { status: string, workflowId: string }
    if (result.status !== 'completed') throw new Error(`/workflow/run: ${JSON.stringify(result)}`)
    return result.workflowId
  }
  /** One `hello` through `client.workflow.execute`; its workflow id. */
  const rawRun = async (): Promise<string> => {
    const options = rawOptions()
    await raw.workflow.execute('hello', options)
    return options.workflowId
  }

  async function drain (): Promise<number> {
    const t = now()
    for (let i = 0; i < 1200; i++) {
      const { count } = await raw.workflow.count(`WorkflowType = "hello" AND ExecutionStatus = "Running" AND TaskQueue = "${opts.taskQueue}"`)
      if (count === 0) return now() - t
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    throw new Error('hello runs did not drain within 300 s')
  }

  /** Share of the machine other work took over `ms` (our processes excluded), sampled now. */
  async function othersShareNow (ms: number): Promise<number> {
    const a = cpuSnapshot(pids)
    await new Promise((resolve) => setTimeout(resolve, ms))
    return othersShare(a, cpuSnapshot(pids))
  }

  return {
    api,
    opts,
    pids,
    raw,
    rawCalls,
    input,
    rawOptions,
    post,
    apiRun,
    rawRun,
    drain,
    othersShareNow,
    close: async () => {
      await pool.close()
      await connection.close()
    }
  }
}
