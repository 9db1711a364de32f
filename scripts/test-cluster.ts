/**
 * `npm run test:cluster`: the tap files of test/cluster/ against the cluster topology, one after
 * the other (docs/cluster.md, "What `npm run test:cluster` proves"); extra arguments go to tap
 * (e.g. one file). The members' output goes to a log file, printed when a test failed.
 */
import { spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startCluster, type Cluster } from '../cli/cluster/topology.js'
import { summarize } from './tap-summary.js'
import { generateKey, hashKey } from '../plugins/app/access/keys.js'
import { SCOPES } from '../schemas/access.js'

const logDir = mkdtempSync(join(tmpdir(), 'flowport-cluster-test-'))
const logFile = join(logDir, 'members.log')
const files = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const tapArgs = process.argv.slice(2).filter((a) => a.startsWith('-'))
const testFiles = files.length > 0 ? files : readdirSync('test/cluster').filter((f) => f.endsWith('.cluster.ts')).sort().map((f) => join('test/cluster', f))

// The tests' key: every scope, no rate limit (test/cluster/helpers.ts sends it).
const clusterKey = generateKey()
const keysFile = join(logDir, 'keys.json')
writeFileSync(keysFile, JSON.stringify({ keys: [{ id: 'cluster-tests', hash: hashKey(clusterKey), scopes: [...SCOPES], rateLimit: 0 }] }, null, 2))

let cluster: Cluster | undefined
let exitCode = 1
let output = ''
try {
  cluster = await startCluster({
    // A long rate-limit window: a budget a test spends is not renewed while it runs.
    env: { SERVICE_WORKFLOWS_DIR: resolve('test/cluster/workflows'), SERVICE_API_KEYS_FILE: keysFile, SERVICE_RATE_LIMIT_WINDOW_MS: '600000' },
    log: (m) => { console.log(`# cluster: ${m}`) },
    output: (name, line) => { appendFileSync(logFile, `[${name}] ${line}\n`) }
  })
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: cluster.state.temporal.address,
    TEMPORAL_NAMESPACE: cluster.state.temporal.namespace,
    FLOWPORT_CLUSTER_STATE: cluster.stateFile,
    FLOWPORT_CLUSTER_KEY: clusterKey,
    FLOWPORT_CLUSTER_KEYS_FILE: keysFile
  }
  // Named on the command line: the files of test/cluster are not *.test.ts, so `npm test` never runs them.
  const tap = spawn(resolve('node_modules/.bin/tap'), ['--reporter=tap', '--jobs=1', '--timeout=600', ...tapArgs, ...testFiles],
    { env, stdio: ['ignore', 'pipe', 'inherit'] })
  tap.stdout.on('data', (chunk: Buffer) => { process.stdout.write(chunk); output += chunk.toString() })
  exitCode = await new Promise<number>((done) => tap.on('exit', (code) => done(code ?? 1)))
} catch (err) {
  console.error(err)
} finally {
  await cluster?.stop()
  if (exitCode !== 0) {
    try {
      console.log(`# last lines of the members' output (${logFile}):`)
      console.log(readFileSync(logFile, 'utf8').split('\n').slice(-60).map((l) => `# ${l}`).join('\n'))
    } catch { /* nothing was written */ }
  } else {
    rmSync(logDir, { recursive: true, force: true })
  }
}
console.log(summarize(output, exitCode))
process.exit(exitCode)
