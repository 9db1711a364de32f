/**
 * `tsx bench/cpu-profile.ts [--write] <label>=<dir> …`: where the API's and the worker's CPU goes, from the `--cpu-prof` profiles that
 * `BENCH_CPU_PROFILE=<root> npm run bench -- cpu-per-run` leaves in <root>/<side>-<round>/ (the
 * measured runs only; window.json names the processes). Each sample goes to
 * a concern: the innermost frame on its stack that belongs to one (so pino called from a step's log
 * line is logging, the SDK's converter called by the claim-check codec is the codec); a stack with
 * none goes to its leaf's package. Prints ms per run by concern, and the heaviest functions, side by
 * side for the directories given (e.g. this tree's and another commit's); --write puts that in the
 * `cpu-profile` section of bench/RESULTS.md. cpu-per-run.ts writes it itself after profiled rounds.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeSection } from './results.js'

interface Node { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
interface Profile { nodes: Node[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }

/** Concerns: a sample goes to the innermost frame on its stack that matches one (by `url` or `function (url)`). */
const CONCERNS: Array<[string, RegExp]> = [
  ['S3 client (trace copies, attempt records, large payloads)', /@aws-sdk|@smithy|\/core\/src\/s3\.ts/],
  ['trace recording and write queue', /\/(worker|core)\/src\/trace\//],
  ['error hooks', /error-hook/],
  ['payload codec and store', /\/core\/src\/payloads\//],
  ['catalog, deployment, manifest lookups', /\/runtime\/(catalog|deployment-version|registry|publish)|\/workflow\/(catalog|manifest)|\/core\/src\/contract/],
  ['logging', /pino|\/common\/logger|step-logs|sdk-logger|\/lib\/logger|dateformat|fast-copy|colorette/],
  ['metrics and OpenTelemetry interceptors', /step-metrics|interceptors-opentelemetry|@opentelemetry/],
  ['Flowport runtime (step wrapper, validation, outcome)', /\/worker\/src\/|\/core\/src\/|ajv|typebox/]
]
/** Where a sample with no concern on its stack goes: its leaf's package, or what V8 calls it. */
function fallbackOf (leaf: Node): string {
  const { url, functionName } = leaf.callFrame
  if (/^\((garbage collector|program)\)$/.test(functionName)) return functionName
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg !== undefined) return pkg.startsWith('@temporalio/') || pkg === 'protobufjs' || pkg === 'long' || pkg === 'rxjs' ? 'Temporal SDK (bridge, activations, proto, rxjs)' : pkg
  if (url.startsWith('node:')) return 'Node internals (streams, fs, net, timers, async hooks)'
  if (url === '') return /^temporal_sdk/.test(functionName) ? 'Temporal SDK (bridge, activations, proto, rxjs)' : 'native calls (I/O, postMessage, JSON, …)'
  return 'other'
}
const IDLE = /^\(idle\)/

function concernOf (frames: Node[]): string {
  for (const f of frames) {
    const key = `${f.callFrame.functionName} (${f.callFrame.url})`
    const found = CONCERNS.find(([, re]) => re.test(f.callFrame.url) || re.test(key))
    if (found) return found[0]
  }
  return fallbackOf(frames[0])
}

export function summarise (profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const concerns = new Map<string, number>()
  const leaves = new Map<string, number>()
  let busyUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? 0
    const frames: Node[] = []
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) frames.push(byId.get(id)!)
    if (IDLE.test(frames[0].callFrame.functionName)) continue
    busyUs += dt
    const concern = concernOf(frames)
    concerns.set(concern, (concerns.get(concern) ?? 0) + dt)
    const leaf = `${frames[0].callFrame.functionName || '(anonymous)'} ${frames[0].callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(worker|core)\//, '$1/')}:${frames[0].callFrame.lineNumber + 1}`
    leaves.set(leaf, (leaves.get(leaf) ?? 0) + dt)
  }
  return { busyUs, concerns, leaves }
}

interface Summary { label: string, role: string, busyUs: number, runs: number, concerns: Map<string, number>, leaves: Map<string, number> }

/** The summaries of the profiles in `dir` (one per profiled process: api, worker). */
export function summariseDir (label: string, dir: string): Summary[] {
  const window = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as { runs: number, pids: Record<string, number> }
  return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((file) => {
    const pid = Number(/(\d+)\.cpuprofile$/.exec(file)?.[1])
    const role = Object.entries(window.pids).find(([, p]) => p === pid)?.[0] ?? `pid ${pid}`
    return { label, role, runs: window.runs, ...summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile) }
  }).filter((s) => s.busyUs > 0).sort((a, b) => a.role.localeCompare(b.role))
}

/** The `cpu-profile` section: per process, ms per run and share of its main thread by concern, side by side. */
export function profileReport (summaries: Summary[], note: string): string {
  const ms = (s: Summary, us: number) => (us / 1000 / s.runs).toFixed(2)
  const tables = [...new Set(summaries.map((s) => s.role))].map((role) => {
    const sides = summaries.filter((s) => s.role === role)
    const concerns = [...new Set(sides.flatMap((s) => [...s.concerns.keys()]))]
      .sort((a, b) => (sides[0].concerns.get(b) ?? 0) - (sides[0].concerns.get(a) ?? 0))
    const rows = concerns.map((c) => `| ${c} | ${sides.map((s) => `${ms(s, s.concerns.get(c) ?? 0)} (${((100 * (s.concerns.get(c) ?? 0)) / s.busyUs).toFixed(0)} %)`).join(' | ')} |`)
    const top = sides.map((s) => `- ${s.label}: ${[...s.leaves].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => `${k.trim()} ${ms(s, v)}`).join('; ')}`)
    return `### ${role === 'api' ? 'API (dev process)' : role === 'worker' ? 'Worker' : role}, main thread: ms per run (share)

| Concern | ${sides.map((s) => s.label).join(' | ')} |
|---|${sides.map(() => '---|').join('')}
${rows.join('\n')}
| **Main thread, all** | ${sides.map((s) => `**${ms(s, s.busyUs)}**`).join(' | ')} |

Heaviest functions (self time, ms per run):
${top.join('\n')}
`
  })
  return `## Where a run's CPU goes: profiles of the API and the worker

${note}
Each sample of a main thread's CPU profile (V8's sampler, 200 µs) is given to the innermost frame on its stack that belongs to a
concern (pino called from a step's log line is logging; the S3 SDK called by the trace store is the S3 client), else to its leaf's
package (bench/cpu-profile.ts). V8's samples measure wall time on the thread while it runs JavaScript or native code, so on a
loaded machine the milliseconds run above /proc's: compare shares and the sides, not the absolute figures with cpu-per-run's.
The workflow sandbox's threads and the SDK's native (Rust) threads are not in these profiles; /proc (cpu-per-run) counts them.

${tables.join('\n')}`
}

// `tsx bench/cpu-profile.ts <label>=<dir> …`: prints the summaries; with --write, the cpu-profile section of bench/RESULTS.md.
if (process.argv[1]?.endsWith('cpu-profile.ts')) {
  const args = process.argv.slice(2)
  const summaries = args.filter((a) => a.includes('=')).flatMap((a) => summariseDir(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)))
  const text = profileReport(summaries, args.filter((a) => !a.includes('=') && a !== '--write').join(' '))
  console.log(text)
  if (args.includes('--write')) writeSection('cpu-profile', text)
}
