/**
 * `tsx bench/cpu-profile.ts <dir> [runs]`: where a worker's CPU goes, from the `--cpu-prof` profiles that
 * `BENCH_CPU_PROFILE=<root> npm run bench -- cpu-per-run` leaves in <root>/<side>-<round>/ (the
 * measured runs only; window.json names the processes). Each sample goes to
 * a concern: the innermost frame on its stack that belongs to one (so pino called from a step's log
 * line is logging, the SDK's converter called by the claim-check codec is the codec); a stack with
 * none goes to its leaf's package. Prints ms per run by concern, and the heaviest functions.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

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
  let t = profile.startTime
  let busyUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]
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

const dir = process.argv[2]
if (dir !== undefined) {
  const window = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as { runs: number, pids: Record<string, number> }
  const runs = Number(process.argv[3] ?? window.runs)
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const pid = Number(/(\d+)\.cpuprofile$/.exec(file)?.[1])
    const role = Object.entries(window.pids).find(([, p]) => p === pid)?.[0] ?? `pid ${pid}`
    const { busyUs, concerns, leaves } = summarise(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile)
    if (busyUs === 0) continue
    const ms = (us: number) => (us / 1000 / runs).toFixed(2)
    console.log(`\n${file} (${role}): ${ms(busyUs)} ms per run on this thread in the window`)
    for (const [k, v] of [...concerns].sort((a, b) => b[1] - a[1])) console.log(`  ${ms(v).padStart(6)}  ${(100 * v / busyUs).toFixed(0).padStart(3)}%  ${k}`)
    console.log('  heaviest functions (self):')
    for (const [k, v] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${ms(v).padStart(6)}  ${k}`)
  }
}
