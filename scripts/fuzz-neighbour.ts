/**
 * The neighbour probe of `npm run fuzz` (issue: one client's request never takes the API down for
 * everyone). While the fuzzer sends its cases, a second client does what an ordinary one does:
 * starts `hello` runs, reads the status of the latest one and asks `/ready`, one request every
 * PROBE_INTERVAL_MS. The engine stays up for the whole phase, so every answer must be a 2xx; a
 * 429 (the documented rate limit, shared with the fuzzer's key) is the only other one allowed.
 * A 503 here is what the engine breaker answered everyone after one request's failure.
 */

/** One probe request that did not get the answer a neighbour is owed. */
export interface ProbeFault {
  at: string
  method: string
  path: string
  status: number
  body: string
}

export interface ProbeReport {
  requests: number
  byStatus: Record<string, number>
  faults: ProbeFault[]
}

export interface ProbeOptions {
  base: string
  token?: string
  intervalMs?: number
  /** The deadline of one request; a request that outlives it is a fault (status 0). */
  timeoutMs?: number
}

const PROBE_INTERVAL_MS = 75
const PROBE_TIMEOUT_MS = 15_000
/** Of every CYCLE requests: one start, one /ready, the rest status reads of the latest run. */
const CYCLE = 6
const BODY_SHOWN = 500

export function startNeighbourProbe (options: ProbeOptions): { stop: () => Promise<ProbeReport> } {
  const { base, token } = options
  const intervalMs = options.intervalMs ?? PROBE_INTERVAL_MS
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  const report: ProbeReport = { requests: 0, byStatus: {}, faults: [] }
  let latest: string | undefined
  const state = { stopped: false }

  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number, text: string }> => {
    const at = new Date().toISOString()
    let status = 0
    let text = ''
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs)
      })
      status = res.status
      text = await res.text()
    } catch (err) {
      text = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
    }
    report.requests++
    report.byStatus[status] = (report.byStatus[status] ?? 0) + 1
    if ((status < 200 || status > 299) && status !== 429) report.faults.push({ at, method, path, status, body: text.slice(0, BODY_SHOWN) })
    return { status, text }
  }

  const step = async (n: number) => {
    const turn = n % CYCLE
    if (turn === 0 || latest === undefined) {
      const started = await send('POST', '/workflow/start', { workflowName: 'hello', input: { name: 'neighbour' } })
      if (started.status === 200) latest = (JSON.parse(started.text) as { workflowId: string }).workflowId
    } else if (turn === 1) {
      await send('GET', '/ready')
    } else {
      await send('GET', `/workflow/${encodeURIComponent(latest)}/status`)
    }
  }

  const loop = (async () => {
    for (let n = 0; !state.stopped; n++) {
      const next = Date.now() + intervalMs
      await step(n)
      const wait = next - Date.now()
      if (wait > 0 && !state.stopped) await new Promise((resolve) => setTimeout(resolve, wait))
    }
  })()

  return {
    stop: async () => {
      state.stopped = true
      await loop
      return report
    }
  }
}

/** The report's lines, and whether the phase passes. */
export function describeProbe (report: ProbeReport): { passed: boolean, lines: string[] } {
  const statuses = Object.entries(report.byStatus).map(([status, count]) => `${status === '0' ? 'no answer' : status}: ${count}`).join(', ')
  const lines = [`neighbour probe: ${report.requests} requests (${statuses || 'none'}), ${report.faults.length} refused`]
  for (const fault of report.faults.slice(0, 20)) {
    lines.push(`  ${fault.at} ${fault.method} ${fault.path} → ${fault.status === 0 ? 'no answer' : fault.status} ${fault.body}`)
  }
  if (report.faults.length > 20) lines.push(`  … and ${report.faults.length - 20} more`)
  return { passed: report.faults.length === 0 && report.requests > 0, lines }
}
