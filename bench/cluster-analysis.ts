/**
 * The "Where the bottleneck is" part of the cluster section of bench/RESULTS.md, written from the
 * figures and CPU shares of the run itself (bench/cluster.ts), so that a re-run rewrites it with
 * its own numbers instead of leaving an analysis of another run.
 */
import type { Percentiles } from './measure.js'

/** Each process's CPU time over a measurement as a share of the whole machine (1 = every core). */
export type Shares = Record<string, number>

interface Measured { share: Shares, machineBusy: number }
export interface StartFigure extends Measured { replicas: number, starts: number, perSecond: number }
export interface RunFigure extends Measured { replicas: number, latency: Percentiles }
export interface StepFigure extends Measured { workers: number, steps: number, perSecond: number }
export interface ClusterResults { starts: StartFigure[], runs: RunFigure[], steps: StepFigure[], load: number[] }

/** At least this busy in every measurement: no idle core was left for a second process. */
const SATURATED = 0.9
/** A two-versus-one ratio inside these bounds is no measurable change on a shared machine. */
const GAIN = 1.25
const LOSS = 0.8
/** `others` this much higher with two than with one: load outside the topology explains the figure. */
const OUTSIDE_RISE = 0.1

const GROUPS = {
  engine: { label: 'the Temporal server and PostgreSQL', members: ['temporal', 'postgres'] },
  api: { label: 'the API replicas', members: ['api-a', 'api-b'] },
  workers: { label: 'the workers', members: ['worker-a', 'worker-b'] }
} as const
type Group = keyof typeof GROUPS

const pct = (v: number): string => `${(v * 100).toFixed(0)}%`
const range = (values: number[]): string => {
  const low = pct(Math.min(...values))
  const high = pct(Math.max(...values))
  return low === high ? low : `${low}–${high}`
}
const groupShare = (share: Shares, group: Group): number => GROUPS[group].members.reduce((sum, m) => sum + (share[m] ?? 0), 0)
const plural = (n: number, one: string): string => `${n} ${one}${n > 1 ? 's' : ''}`

export function bottleneckAnalysis (r: ClusterResults, cores: number): string {
  const measurements = [
    ...r.starts.map((s) => ({ label: `starts, ${plural(s.replicas, 'replica')}`, ...s })),
    ...r.runs.map((s) => ({ label: `/workflow/run, ${plural(s.replicas, 'replica')}`, ...s })),
    ...r.steps.map((s) => ({ label: `steps, ${plural(s.workers, 'worker')}`, ...s }))
  ]
  const busy = measurements.map((m) => m.machineBusy)
  const saturated = Math.min(...busy) >= SATURATED
  const paragraphs: string[] = []

  // 1. What two gave over one, and whether the machine left room for a gain.
  // `gain` above 1 is better with two; for the latency that is one's p50 over two's, the inverse of
  // the `shown` ratio, which is the table's (two's p50 over one's).
  const ratio = (v: number): string => `×${v.toFixed(2)}`
  const pairs = [
    { figure: 'starts per second', gain: r.starts[1].perSecond / r.starts[0].perSecond, one: r.starts[0], two: r.starts[1], label: 'starts, 2 replicas' },
    { figure: '`/workflow/run` p50 (lower is better)', gain: r.runs[0].latency.p50 / r.runs[1].latency.p50, one: r.runs[0], two: r.runs[1], label: '/workflow/run, 2 replicas' },
    { figure: 'steps per second', gain: r.steps[1].perSecond / r.steps[0].perSecond, one: r.steps[0], two: r.steps[1], label: 'steps, 2 workers' }
  ].map((p) => ({ ...p, shown: p.label.startsWith('/workflow/run') ? 1 / p.gain : p.gain }))
  const verdict = (gain: number): string => (gain >= GAIN ? 'better' : gain > LOSS ? 'no measurable change' : 'worse')
  const gains = pairs.map((p) => `${p.figure} ${ratio(p.shown)} (${verdict(p.gain)})`).join(', ')
  paragraphs.push(saturated
    ? `Two versus one: ${gains}. The machine was ${range(busy)} busy in every measurement: with no ` +
      `idle core, a second API replica or worker is one more process competing for the same ${cores} cores, so this run cannot show ` +
      'a scaling gain, whatever the topology could do on more cores.'
    : `Two versus one: ${gains}. The machine was ${range(busy)} busy, so some CPU was left idle in at ` +
      'least one measurement: where two gave no gain there, the limit was not the number of replicas or workers.')

  // 2. Where the CPU went.
  const shares = (member: string): number[] => measurements.map((m) => m.share[member] ?? 0)
  const group = (g: Group): number[] => measurements.map((m) => groupShare(m.share, g))
  paragraphs.push(`CPU, over the ${measurements.length} measurements: ${GROUPS.engine.label} together ${range(group('engine'))} ` +
    `(temporal ${range(shares('temporal'))}, postgres ${range(shares('postgres'))}), ${GROUPS.api.label} together ${range(group('api'))}, ` +
    `${GROUPS.workers.label} together ${range(group('workers'))}, the benchmark's clients ${range(shares('bench'))}; \`others\` ` +
    `(work outside the topology: other jobs on this machine, the kernel) ${range(shares('others'))}.`)

  // 3. Figures that load from outside the topology explains.
  const outside = pairs.filter((p) => p.gain <= LOSS && (p.two.share.others ?? 0) - (p.one.share.others ?? 0) >= OUTSIDE_RISE)
  for (const p of outside) {
    paragraphs.push(`During "${p.label}" \`others\` took ${pct(p.two.share.others ?? 0)} of the machine (${pct(p.one.share.others ?? 0)} with one): ` +
      `work outside the topology took the CPU, so that figure's ${ratio(p.shown)} is load, not the second process.`)
  }

  // 4. The bottleneck: the part of the topology with the largest share, and how often it led.
  const topology = Object.keys(GROUPS) as Group[]
  const leader = (share: Shares): Group => topology.reduce((best, g) => (groupShare(share, g) > groupShare(share, best) ? g : best))
  const leads = topology.map((g) => ({ g, times: measurements.filter((m) => leader(m.share) === g).length, mean: group(g).reduce((a, b) => a + b, 0) / measurements.length }))
  const top = leads.reduce((best, l) => (l.mean > best.mean ? l : best))
  const others = leads.filter((l) => l.g !== top.g).map((l) => `${GROUPS[l.g].label} ${pct(l.mean)}`).join(', ')
  let bottleneck = `Bottleneck: ${GROUPS[top.g].label}, the largest share of the CPU in ${top.times} of the ${measurements.length} ` +
    `measurements (mean ${pct(top.mean)}; ${others})`
  if (top.g === 'engine') {
    const mean = (g: Group): number => leads.find((l) => l.g === g)!.mean
    if (mean('engine') > mean('api') + mean('workers')) bottleneck += '. Together they took more of the CPU than the API replicas and the workers'
    bottleneck += '. PostgreSQL here runs with its default durable settings (an fsync per commit) and Temporal with 4 history ' +
      'shards in one process; a second API replica or worker adds no capacity to that part'
  }
  bottleneck += saturated
    ? ', on a machine with no idle core. Scale-out pays where each replica or worker gets cores of its own and Temporal is sized ' +
      'for the load (more history shards, machines of its own); a machine this size proves the topology correct ' +
      '(`npm run test:cluster`), not its scaling.'
    : '.'
  paragraphs.push(bottleneck)
  return paragraphs.join('\n\n')
}
