/**
 * The neighbour probe of `npm run fuzz` (docs/quality.md, "Fuzzing"): while the fuzzer sends its
 * cases, a second client does what an ordinary one does; every answer must be a 2xx or a 429 (the
 * rate limit it shares with the fuzzer's key). A 503 here is what the engine breaker answered
 * everyone after one request's failure.
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
    const init = body === undefined ? { method, headers } : { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }
    const { status, text } = await answerOf(`${base}${path}`, init, timeoutMs)
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
  const lines = faultLines(report.byStatus, (statuses) => `neighbour probe: ${report.requests} requests (${statuses || 'none'}), ${report.faults.length} refused`,
    report.faults, (fault) => `${fault.at} ${fault.method} ${fault.path} → ${answered(fault.status)} ${fault.body}`)
  return { passed: report.faults.length === 0 && report.requests > 0, lines }
}

/** A request of a fuzz pass, which never throws: its status (0: no answer within `timeoutMs`) and body, or why none came. */
export async function answerOf (url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number, text: string }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    // A stream that was opened after all would never end by itself: only its status matters.
    const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    if (stream) await res.body?.cancel()
    return { status: res.status, text: stream ? '' : await res.text() }
  } catch (err) {
    return { status: 0, text: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }
  }
}

const answered = (status: number) => (status === 0 ? 'no answer' : status)

/** A pass's head line (given its counts by status), then its first 20 faults. */
export function faultLines<F extends { status: number }> (byStatus: Record<string, number>, head: (statuses: string) => string, faults: F[], line: (fault: F) => string): string[] {
  const statuses = Object.entries(byStatus).map(([status, count]) => `${answered(Number(status))}: ${count}`).join(', ')
  return [head(statuses), ...faults.slice(0, 20).map((fault) => `  ${line(fault)}`), ...(faults.length > 20 ? [`  … and ${faults.length - 20} more`] : [])]
}
