/**
 * The API under benchmark, in its own process (started with --expose-gc) so its memory is not
 * mixed with the 1,000 benchmark clients. Talks to bench/run.ts over the IPC channel.
 */
import { buildApp } from '../app.js'
import { loadConfig } from '../schemas/config.js'

const app = await buildApp({ config: loadConfig({ ...process.env, LOG_LEVEL: 'warn' }) })
const address = await app.listen({ port: 0, host: '127.0.0.1' })

type Command = { id: number, cmd: 'memory' | 'metrics' | 'trackLags' | 'lags' | 'close' }

function memory () {
  // Several passes: the first frees what the second pass' finalizers release.
  for (let i = 0; i < 4; i++) (globalThis as { gc?: () => void }).gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }
}

const metrics = () => ({ ...app.historyHubs.metrics, hubs: app.historyHubs.size, subscribers: app.historyHubs.subscribers, openStreams: app.openStreams.size })

process.on('message', (message: Command) => {
  const reply = (result: unknown) => process.send?.({ id: message.id, result })
  if (message.cmd === 'memory') reply(memory())
  else if (message.cmd === 'metrics') reply(metrics())
  else if (message.cmd === 'trackLags') reply(app.historyHubs.trackDeliveries(1_000_000))
  else if (message.cmd === 'lags') {
    const { deliveryLags, deliveries, readLags, reads } = app.historyHubs
    const taken = (ring: Float64Array | undefined, n: number) => Array.from(ring?.subarray(0, Math.min(n, ring.length)) ?? [])
    reply({ delivery: taken(deliveryLags, deliveries), read: taken(readLags, reads) })
  }
  else if (message.cmd === 'close') {
    const started = Date.now()
    void app.close().then(() => { reply({ closeMs: Date.now() - started }); process.exit(0) })
  }
})
process.send?.({ ready: address })
