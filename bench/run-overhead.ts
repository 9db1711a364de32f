/**
 * /workflow/run overhead: sequential `hello` runs, `POST /workflow/run` against the raw
 * `client.workflow.execute` (start + close-event long-poll), in alternating pairs; each API sample
 * split into HTTP, the API's own work and its engine calls, and each run's own time from its
 * history's event times.
 */
import type { Client } from '@temporalio/client'
import { f1, median, msp, now, percentiles, type ApiTrace, type Percentiles, type Side, type TracedRequest } from './measure.js'
import type { StartSession } from './start-session.js'

/** Medians, in ms, of the steps of `hello` runs as the engine recorded them (event times). */
export interface Anatomy {
  runs: number
  /** Started → first workflow task picked up by the worker. */
  firstTaskDispatch: number
  /** The worker's first workflow task (runs the workflow code up to the step). */
  firstTask: number
  /** Step scheduled → picked up. */
  stepDispatch: number
  /** Step running in the worker. */
  step: number
  /** Step done → second workflow task picked up. */
  secondTaskDispatch: number
  /** The worker's second workflow task (returns the result). */
  secondTask: number
  /** Started → closed. */
  total: number
}

async function anatomyOf (client: Client, workflowIds: string[]): Promise<Anatomy> {
  const steps: Record<Exclude<keyof Anatomy, 'runs'>, number[]> = { firstTaskDispatch: [], firstTask: [], stepDispatch: [], step: [], secondTaskDispatch: [], secondTask: [], total: [] }
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? []
    const at = (type: number, nth = 0) => {
      const e = events.filter((x) => x.eventType === type)[nth]
      return e?.eventTime ? Number(e.eventTime.seconds) * 1000 + (e.eventTime.nanos ?? 0) / 1e6 : NaN
    }
    // Event types: 1 started, 2 completed, 5/6/7 workflow task scheduled/started/completed, 10/11/12 activity scheduled/started/completed.
    steps.firstTaskDispatch.push(at(6) - at(1))
    steps.firstTask.push(at(7) - at(6))
    steps.stepDispatch.push(at(11) - at(10))
    steps.step.push(at(12) - at(11))
    steps.secondTaskDispatch.push(at(6, 1) - at(12))
    steps.secondTask.push(at(7, 1) - at(6, 1))
    steps.total.push(at(2) - at(1))
  }
  return { runs: workflowIds.length, ...Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, median(v)])) } as Anatomy
}

export interface Overhead {
  samples: number
  api: Percentiles
  raw: Percentiles
  p50Difference: number
  /** Median of per-pair differences (api − raw of the same pair). */
  pairedMedian: number
  /** Median split of an API sample: client/HTTP, API's own work, engine calls. */
  split: {
    apiServer: Percentiles
    apiHttpAndClient: Percentiles
    apiOwnWork: Percentiles
    apiEngine: Percentiles
    apiStartCall: Percentiles
    apiResultCall: Percentiles
    rawEngine: Percentiles
    rawStartCall: Percentiles
    rawResultCall: Percentiles
    rawClientWork: Percentiles
  }
  /** API samples that also described the catalog (cache misses of the 2 s catalog cache), and their p50. */
  catalogMisses: number
  catalogMissLatency?: number
  apiEngineCalls: Record<string, number>
  /** Where a `hello` run's own time goes, from its history's event times (medians of the last runs of each side). */
  anatomy: Record<Side, Anatomy>
  /** Every sample, in the order taken. */
  times: Record<Side, number[]>
}

export async function measureRunOverhead (session: StartSession): Promise<Overhead> {
  const { api, opts, raw, rawCalls, apiRun, rawRun, drain } = session
  // 2. /workflow/run overhead: sequential pairs, the order alternating.
  await api.call('traceOn')
  const apiTimes: number[] = []
  const rawTimes: number[] = []
  const rawSplit: { start: number, result: number, total: number }[] = []
  const ids: Record<Side, string[]> = { api: [], raw: [] }
  for (let i = 0; i < opts.runSamples; i++) {
    for (const side of (i % 2 === 0 ? ['api', 'raw'] : ['raw', 'api']) as Side[]) {
      if (side === 'api') {
        const t = now()
        const id = await apiRun()
        apiTimes.push(now() - t)
        ids.api.push(id)
      } else {
        rawCalls.length = 0
        const t = now()
        const id = await rawRun()
        const total = now() - t
        rawTimes.push(total)
        ids.raw.push(id)
        rawSplit.push({
          start: rawCalls.filter((c) => c.name === 'startWorkflowExecution').reduce((a, c) => a + c.ms, 0),
          result: rawCalls.filter((c) => c.name === 'getWorkflowExecutionHistory').reduce((a, c) => a + c.ms, 0),
          total
        })
      }
    }
  }
  const trace = await api.call<ApiTrace>('trace')
  await api.call('traceOff')
  const runs = trace.requests.filter((r) => r.url === '/workflow/run')
  if (runs.length !== apiTimes.length) throw new Error(`API traced ${runs.length} /workflow/run requests for ${apiTimes.length} samples`)
  const callMs = (r: TracedRequest, name: string) => r.calls.filter((c) => c.name === name).reduce((a, c) => a + c.ms, 0)
  const engineMs = (r: TracedRequest) => r.calls.reduce((a, c) => a + c.ms, 0)
  const misses = runs.map((r, i) => ({ r, i })).filter(({ r }) => r.calls.some((c) => c.name === 'describeWorkflowExecution'))
  await drain()
  const anatomy = { api: await anatomyOf(raw, ids.api.slice(-40)), raw: await anatomyOf(raw, ids.raw.slice(-40)) }

  return {
    samples: opts.runSamples,
    api: percentiles(apiTimes),
    raw: percentiles(rawTimes),
    p50Difference: median(apiTimes) - median(rawTimes),
    pairedMedian: median(apiTimes.map((a, i) => a - rawTimes[i])),
    split: {
      apiServer: percentiles(runs.map((r) => r.ms)),
      apiHttpAndClient: percentiles(runs.map((r, i) => apiTimes[i] - r.ms)),
      apiOwnWork: percentiles(runs.map((r) => r.ms - engineMs(r))),
      apiEngine: percentiles(runs.map(engineMs)),
      apiStartCall: percentiles(runs.map((r) => callMs(r, 'startWorkflowExecution'))),
      apiResultCall: percentiles(runs.map((r) => callMs(r, 'getWorkflowExecutionHistory'))),
      rawEngine: percentiles(rawSplit.map((s) => s.start + s.result)),
      rawStartCall: percentiles(rawSplit.map((s) => s.start)),
      rawResultCall: percentiles(rawSplit.map((s) => s.result)),
      rawClientWork: percentiles(rawSplit.map((s) => s.total - s.start - s.result))
    },
    catalogMisses: misses.length,
    catalogMissLatency: misses.length ? median(misses.map(({ i }) => apiTimes[i])) : undefined,
    apiEngineCalls: trace.counts,
    anatomy,
    times: { api: apiTimes, raw: rawTimes }
  }
}

export function overheadReport (o: Overhead): string {
  const s = o.split
  return `### \`/workflow/run\` overhead

| Sequential \`hello\` runs (p50 / p90 / p99) | Through the API | Raw client |
|---|---|---|
| Client-observed, start → result | ${msp(o.api)} | ${msp(o.raw)} |
| Engine calls (StartWorkflowExecution + close-event long-poll), as the caller timed them | ${msp(s.apiEngine)} | ${msp(s.rawEngine)} |
| … StartWorkflowExecution | ${msp(s.apiStartCall)} | ${msp(s.rawStartCall)} |
| … GetWorkflowExecutionHistory (waits for the run to close) | ${msp(s.apiResultCall)} | ${msp(s.rawResultCall)} |
| API's own work (server time − engine calls: routing, body and input validation, catalog, decoding, serialization) | ${msp(s.apiOwnWork)} | — |
| HTTP and client (client-observed − server time: undici, loopback, parsing) | ${msp(s.apiHttpAndClient)} | — |
| Client library's own work (client-observed − engine calls) | — | ${msp(s.rawClientWork)} |
| API server time (request parsed → response finished) | ${msp(s.apiServer)} | — |

A \`hello\` run itself (engine event times, medians of the last ${o.anatomy.api.runs} runs of each side, API / raw): started → first workflow task
picked up ${f1(o.anatomy.api.firstTaskDispatch)} / ${f1(o.anatomy.raw.firstTaskDispatch)} ms, worker's first task ${f1(o.anatomy.api.firstTask)} / ${f1(o.anatomy.raw.firstTask)} ms, step dispatch ${f1(o.anatomy.api.stepDispatch)} / ${f1(o.anatomy.raw.stepDispatch)} ms,
step ${f1(o.anatomy.api.step)} / ${f1(o.anatomy.raw.step)} ms, second task dispatch ${f1(o.anatomy.api.secondTaskDispatch)} / ${f1(o.anatomy.raw.secondTaskDispatch)} ms and run ${f1(o.anatomy.api.secondTask)} / ${f1(o.anatomy.raw.secondTask)} ms; started → closed ${f1(o.anatomy.api.total)} / ${f1(o.anatomy.raw.total)} ms.

The p50 overhead is the API's own work plus HTTP, about ${f1(s.apiOwnWork.p50 + s.apiHttpAndClient.p50)} ms, against the raw client's own ${f1(s.rawClientWork.p50)} ms;
most of a run's time is the engine and the worker running \`hello\` (the long-poll), the same on both sides, and its noise is
what the p90/p99 show. Catalog cache misses in the API samples: ${o.catalogMisses} of ${o.samples}${o.catalogMissLatency !== undefined ? ` (their median ${f1(o.catalogMissLatency)} ms)` : ''};
engine calls the API made: ${Object.entries(o.apiEngineCalls).map(([k, v]) => `${k} ${v}`).join(', ')}.
`
}
