/**
 * The worker's probes for a supervisor: `GET /health` (liveness: the process runs and has not
 * given up) and `GET /ready` (readiness: its pollers run and the engine answers), as JSON.
 */
import { createServer, type Server } from 'node:http'
import type { PollingWorker } from './keep-polling.js'

export async function serveHealth (worker: PollingWorker, port: number, host = '0.0.0.0'): Promise<Server> {
  const server = createServer((req, res) => {
    const answer = (status: number, body: Record<string, unknown>): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body))
    }
    const path = (req.url ?? '').split('?')[0]
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, { error: 'MethodNotAllowed' })
    if (path === '/health') return answer(200, { status: 'ok', worker: worker.state() })
    if (path === '/ready') {
      worker.isPolling().then(
        (polling) => { answer(polling ? 200 : 503, { status: polling ? 'ready' : 'not ready', worker: worker.state(), polling }) },
        () => { answer(503, { status: 'not ready', worker: worker.state(), polling: false }) }
      )
      return
    }
    answer(404, { error: 'NotFound' })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => { server.off('error', reject); resolve() })
  })
  return server
}
