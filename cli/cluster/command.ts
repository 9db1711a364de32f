/**
 * `flowport cluster` / `npm run cluster`: the production topology on this machine
 * (cli/cluster/topology.ts) until Ctrl-C, which stops all of it: API replicas, workers, the
 * Temporal server, the object store, PostgreSQL and their data, Redis.
 */
import { onParentExit } from '../supervise.js'
import { findObjectStoreBinary } from '../object-store-binary.js'
import { findServerBinaries } from './server-binary.js'
import { startCluster, type Cluster } from './topology.js'

const log = (message: string): void => { console.log(`[cluster] ${message}`) }

/**
 * `flowport cluster --prepare`: the binaries the cluster builds at its first start, built now
 * (e.g. in CI, while other work runs, or in a step whose cache is kept), so that the first start
 * takes seconds. Concurrent builds are safe (cli/go-install.ts).
 */
export async function prepareCluster (): Promise<void> {
  try {
    // The store first: it is the quicker build, and `npm test` needs it too.
    const store = await findObjectStoreBinary(log)
    const server = await findServerBinaries(log)
    log(`Temporal server: ${server.server} (${server.source}); object store: ${store.path} (${store.source})`)
  } catch (err) {
    console.error((err as Error).message)
    process.exit(1)
  }
}

export async function runCluster (opts: { apis: number, workers: number, port: number }): Promise<void> {
  let cluster: Cluster | undefined
  let stopping = false
  const shutdown = async (code: number): Promise<void> => {
    if (stopping) return
    stopping = true
    log('Stopping the cluster …')
    await cluster?.stop()
    process.exit(code)
  }
  process.on('SIGINT', () => { void shutdown(0) })
  process.on('SIGTERM', () => { void shutdown(0) })
  onParentExit(() => { log('The parent process ended'); void shutdown(0) })

  try {
    cluster = await startCluster({ apis: opts.apis, workers: opts.workers, apiPort: opts.port, log })
  } catch (err) {
    console.error((err as Error).message)
    process.exit(1)
  }
  // A signal during the start: startCluster has returned, now stop what it started.
  if (stopping) { await cluster.stop(); return }
  const { state } = cluster
  const width = Math.max(...state.members.map((m) => m.name.length), 'PostgreSQL'.length) + 2
  const row = (name: string, value: string): string => `  ${name.padEnd(width)}${value}`
  console.log(['', 'Flowport cluster is running:',
    row('PostgreSQL', `${state.postgres.address} (user temporal)`),
    row('Temporal', `${state.temporal.address} (namespace ${state.temporal.namespace}; metrics ${state.temporal.metricsUrl})`),
    ...(state.redis ? [row('Redis', `${state.redis.address} (rate limits)`)] : []),
    row('Store', `${state.store.endpoint} (S3, bucket ${state.store.bucket}: every member's traces and large payloads)`),
    ...state.members.map((m) => row(m.name, m.role === 'api' ? m.url : `probes ${m.url}/ready`)),
    row('State', cluster.stateFile),
    'Press Ctrl-C to stop all of it.', ''].join('\n'))
}
