/**
 * `npm run bench -- first-start`: a fresh machine's first `npm start`, on an empty Flowport cache,
 * once per state of Go's caches (BENCH_FIRST_START_GO, default `cold,warm`: `cold` empty ones, as
 * on a machine that never built Go, `warm` the machine's own); the method: the section's note
 * below. Measured, never asserted.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatMs } from '@flowport/core/duration'
import { freePort } from '../cli/engine.js'
import { machineNote, table, writeSection } from './results.js'

const BUDGET_MS = Number(process.env.BENCH_FIRST_START_BUDGET_S ?? 1200) * 1000
const VARIANTS = (process.env.BENCH_FIRST_START_GO ?? 'cold,warm').split(',').map((v) => v.trim()).filter((v): v is 'cold' | 'warm' => v === 'cold' || v === 'warm')
const GOAL_MS = 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const ms = (v: number | undefined) => (v === undefined ? 'not within the budget' : formatMs(v))

interface FirstStart { go: 'cold' | 'warm', readyAt?: number, storeAt?: number, lines: string[] }

async function firstStart (go: 'cold' | 'warm'): Promise<FirstStart> {
  const root = mkdtempSync(join(tmpdir(), 'flowport-first-start-'))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    FLOWPORT_CACHE_DIR: join(root, 'cache'),
    FLOWPORT_DATA_DIR: join(root, 'data'),
    PORT: String(port),
    FLOWPORT_ENGINE_PORT: String(await freePort()),
    FLOWPORT_ENGINE_UI_PORT: String(await freePort()),
    FLOWPORT_STORE_PORT: String(await freePort()),
    ...(go === 'cold' ? { GOMODCACHE: join(root, 'gomod'), GOCACHE: join(root, 'gocache') } : {})
  }
  // What `npm start` does with no setting: its own engine and its own store.
  for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_CLI_PATH', 'VERSITYGW_PATH', 'SERVICE_TRACE_S3_BUCKET', 'SERVICE_TRACE_DIR', 'SERVICE_CATALOG_ID']) delete env[name]
  for (const name of Object.keys(env)) if (name.startsWith('SERVICE_CLOUD_')) delete env[name]

  const began = performance.now()
  const child = spawn('npm', ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  let storeAt: number | undefined
  const read = (chunk: Buffer): void => {
    output += chunk.toString()
    if (storeAt === undefined && /Store\s+http:\/\//.test(output)) storeAt = performance.now() - began
  }
  child.stdout.on('data', read)
  child.stderr.on('data', read)
  let exited = false
  child.once('exit', () => { exited = true })

  let readyAt: number | undefined
  const done = (): boolean => performance.now() - began >= BUDGET_MS || exited || (readyAt !== undefined && storeAt !== undefined)
  while (!done()) {
    if (readyAt === undefined) {
      const status = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0)
      if (status === 200) readyAt = performance.now() - began
    }
    await sleep(250)
  }
  try { process.kill(-child.pid!, 'SIGTERM') } catch { /* gone */ }
  await new Promise((resolve) => { if (exited) resolve(undefined); else child.once('exit', resolve) })
  if (exited && readyAt === undefined) console.log(output)
  // Go's module cache is read-only on disk.
  if (go === 'cold') await new Promise((resolve) => spawn('chmod', ['-R', 'u+w', join(root, 'gomod')]).once('exit', resolve))
  rmSync(root, { recursive: true, force: true })
  const lines = output.split('\n').filter((l) => /\[dev\] (engine|store):/.test(l)).map((l) => `    ${l.trim().replaceAll(root, '$TMP')}`)
  console.log(`Go caches ${go}: ready ${ms(readyAt)}, store attached ${ms(storeAt)}`)
  return { go, readyAt, storeAt, lines }
}

const machine = machineNote()
const results: FirstStart[] = []
for (const go of VARIANTS) results.push(await firstStart(go))

const GO = { cold: 'empty (modules downloaded from the proxy and compiled)', warm: 'the machine\'s own (warm)' }
writeSection('first-start', `## First start: \`npm start\` on an empty Flowport cache (issue 50, item 1)

${machine}

\`npm run bench -- first-start\` (bench/first-start.ts) spawns \`npm start\` with an empty \`FLOWPORT_CACHE_DIR\`, so the
engine's binary is fetched and the store's binary downloaded or built as on a fresh clone, and measures from the
spawn to \`/ready\` answering 200 (goal: ≤ ${formatMs(GOAL_MS)}, whatever the store does) and to the log's \`Store\` line
(the store attached; no goal: nothing waits for it). One start per state of Go's module and build caches
(\`BENCH_FIRST_START_GO=cold,warm\`).

${table(['Go caches', '`/ready` answers 200', 'goal', 'store attached (`Store` line)'], results.map((r) => `| ${GO[r.go]} | ${ms(r.readyAt)} | ${r.readyAt !== undefined && r.readyAt <= GOAL_MS ? 'met' : 'missed'} | ${ms(r.storeAt)} |`))}

What the stack logged about getting its binaries (\`$TMP\`: the run's temporary folder):

${results.map((r) => `  Go caches ${r.go}:\n\n${r.lines.join('\n') || '    (nothing)'}`).join('\n\n')}
`)
