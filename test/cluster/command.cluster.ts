/**
 * `flowport cluster` itself (a topology of its own, one replica and one worker to keep it short,
 * and the delivery worker): it prints the addresses once everything is ready, and Ctrl-C (SIGINT) stops every process it
 * started — PostgreSQL and its backends, the object store and Redis included — and removes PostgreSQL's data.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { descendants, freePort, status, survivors, until } from '../helpers/processes.js'

t.test('flowport cluster comes up, prints its addresses, and Ctrl-C leaves no process behind', async (t) => {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', resolve('cli/flowport.ts'), 'cluster', '--apis', '1', '--workers', '1', '--port', String(port)],
    { env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr.on('data', (c: Buffer) => { output += c.toString() })
  t.teardown(() => { for (const pid of [...descendants(child.pid!), child.pid!]) try { process.kill(pid, 'SIGKILL') } catch { /* gone */ } })

  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  const up = await Promise.race([
    new Promise<boolean>((done) => { const check = () => { if (output.includes('Press Ctrl-C')) done(true); else setTimeout(check, 200) }; check() }),
    exited.then(() => false)
  ])
  t.ok(up, `the cluster came up:\n${output}`)
  t.match(output, /PostgreSQL\s+127\.0\.0\.1:\d+/)
  t.match(output, /Temporal\s+127\.0\.0\.1:\d+ \(namespace default/)
  t.match(output, /Redis\s+127\.0\.0\.1:\d+ \(rate limits\)/, 'Redis for the replicas\' rate limits')
  t.match(output, /Store\s+http:\/\/127\.0\.0\.1:\d+ \(S3, bucket flowport/, 'the object store')
  t.match(output, new RegExp(`api-a\\s+http://127\\.0\\.0\\.1:${port}`), 'api-a on the port asked for')
  t.match(output, /worker-a\s+probes http:\/\/127\.0\.0\.1:\d+\/ready/)
  t.equal(await status(`http://127.0.0.1:${port}/ready`), 200, 'the replica is ready')
  t.match(output, /deliveries\s+probes http:\/\/127\.0\.0\.1:\d+\/ready/, 'and a delivery worker, for the webhooks of declared catalogs')
  t.ok(await until(async () => (await (await fetch(`http://127.0.0.1:${port}/ready`)).json() as { deliveryWorker: boolean }).deliveryWorker, 40),
    'which the replica\'s /ready sees polling __flowport_deliveries')

  const pids = descendants(child.pid!)
  t.ok(pids.length >= 4, `${pids.length} processes below the command (PostgreSQL and backends, Temporal, the store, Redis, API, worker)`)
  const dataDir = /data in (\S+)\)/.exec(output)?.[1]
  t.ok(dataDir !== undefined && existsSync(dataDir), 'PostgreSQL data in a temporary directory')

  child.kill('SIGINT')
  t.equal(await exited, 0, 'Ctrl-C: exit code 0')
  t.same(await survivors(pids), [], 'no process left behind')
  t.notOk(existsSync(dataDir!), 'the data directory is gone')
})
