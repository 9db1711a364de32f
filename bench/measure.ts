/**
 * What the start benchmarks measure with: percentiles, CPU time per process and of the whole
 * machine (/proc), timed engine calls of a client, and a closed loop of operations.
 */
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Connection } from '@temporalio/client'

export type Side = 'api' | 'raw'
export const PROCESSES = ['engine', 'worker', 'api', 'bench'] as const
export type ProcessName = typeof PROCESSES[number]

export interface Percentiles { samples: number, p50: number, p90: number, p99: number, mean: number }

export type Cpu = Record<ProcessName | 'others', number>

export const now = () => performance.now()

/** The value at quantile `q` of `values` (nearest rank), NaN when there is none. */
export const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN

export function percentiles (values: number[]): Percentiles {
  const at = (q: number) => quantile(values, q)
  return { samples: values.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: values.reduce((a, b) => a + b, 0) / Math.max(1, values.length) }
}
/** The middle value, or the mean of the two middle ones for an even count. */
export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const CLK_TCK = (() => {
  try { return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100 } catch { return 100 }
})()
const jiffiesToMs = (j: number) => (j * 1000) / CLK_TCK

/** User + system CPU ms of a process (all its threads) so far. */
export function processCpuMs (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return jiffiesToMs(Number(fields[11]) + Number(fields[12]))
  } catch { return NaN }
}

/** Busy and total CPU ms of the whole machine so far (all cores). */
export function machineCpuMs (): { busy: number, total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]
  const v = line.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal (guest fields are included in user/nice)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0)
  const idle = v[3] + v[4]
  return { busy: jiffiesToMs(total - idle), total: jiffiesToMs(total) }
}

export interface CpuSnapshot { procs: Record<ProcessName, number>, machine: { busy: number, total: number } }

export function cpuSnapshot (pids: Record<ProcessName, number>): CpuSnapshot {
  const procs = Object.fromEntries(PROCESSES.map((p) => [p, processCpuMs(pids[p])])) as Record<ProcessName, number>
  return { procs, machine: machineCpuMs() }
}

/** CPU ms per operation of each process between two snapshots; "others" = the machine's busy time not spent by them. */
export function cpuPerOp (a: CpuSnapshot, b: CpuSnapshot, per: number): Cpu {
  const cpu = {} as Cpu
  let ours = 0
  for (const p of PROCESSES) {
    const d = b.procs[p] - a.procs[p]
    ours += d
    cpu[p] = d / per
  }
  cpu.others = Math.max(0, b.machine.busy - a.machine.busy - ours) / per
  return cpu
}
/** Share of the machine's capacity that work other than our four processes took between two snapshots. */
export const othersShare = (a: CpuSnapshot, b: CpuSnapshot) => cpuPerOp(a, b, 1).others / Math.max(1, b.machine.total - a.machine.total)
export const busyShare = (a: CpuSnapshot, b: CpuSnapshot) => (b.machine.busy - a.machine.busy) / Math.max(1, b.machine.total - a.machine.total)

export function meanCpu<T> (rounds: T[], pick: (r: T) => Cpu | undefined): Cpu {
  const keys = [...PROCESSES, 'others'] as const
  return Object.fromEntries(keys.map((k) => [k, rounds.reduce((a, r) => a + (pick(r)?.[k] ?? 0), 0) / rounds.length])) as Cpu
}

/** Engine calls of a client, timed: every method of its (namespace-injecting) service wrapper. */
export interface EngineCall { name: string, at: number, ms: number }
export function traceEngineCalls (connection: Connection, sink: EngineCall[]): void {
  const service = connection.workflowService as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  for (const [name, fn] of Object.entries(service)) {
    if (typeof fn !== 'function') continue
    service[name] = async (...args: unknown[]) => {
      const at = now()
      try { return await fn(...args) } finally { sink.push({ name, at, ms: now() - at }) }
    }
  }
}

/**
 * `rounds` rounds of `measure` on every variant, the order flipping each round, so that no variant
 * always runs first on a cooled machine and drift of the machine hits all alike.
 */
export async function interleaved<V> (rounds: number, variants: readonly V[], measure: (variant: V, round: number) => Promise<void>): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (const variant of r % 2 === 0 ? variants : [...variants].reverse()) await measure(variant, r)
  }
}

/** `n` operations, `concurrency` in flight at any time (closed loop); latency of each. */
export async function closedLoop (n: number, concurrency: number, op: () => Promise<void>): Promise<{ ms: number, latencies: number[] }> {
  const latencies: number[] = []
  let next = 0
  let failure: unknown
  const started = now()
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, async () => {
    while (next < n && failure === undefined) {
      next++
      const t = now()
      try { await op() } catch (err) { failure ??= err; return }
      latencies.push(now() - t)
    }
  }))
  if (failure !== undefined) throw failure
  return { ms: now() - started, latencies }
}

/** What bench/api-process.ts answers to `trace`. */
export interface TracedRequest { url: string, ms: number, calls: { name: string, ms: number }[] }
export interface ApiTrace { requests: TracedRequest[], counts: Record<string, number> }

export const f1 = (v: number) => v.toFixed(1)
export const f2 = (v: number) => v.toFixed(2)
export const msp = (p: Percentiles) => `${f1(p.p50)} / ${f1(p.p90)} / ${f1(p.p99)} ms`
export const verdict = (ok: boolean) => (ok ? 'met' : '**not met**')
