// The floor of any HTTP front for the read benchmark (bench/read.ts): node:http over the raw
// @temporalio/client, nothing else (no routing library, validation, auth, logging, metrics or
// cache). `GET /describe/<workflow id>` answers `handle.describe()`'s fields as JSON,
// `GET /result/<workflow id>` `handle.result()`. Forked by the benchmark; says where it listens
// over IPC. Plain JavaScript, run without tsx like the built API.
import { createServer } from 'node:http'
import { Client, Connection } from '@temporalio/client'

const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS })
const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE })

const reads = {
  describe: async (handle) => {
    const d = await handle.describe()
    const { workflowId, runId, type, taskQueue, startTime, closeTime, historyLength } = d
    return { workflowId, runId, status: d.status.name, type, taskQueue, startTime, closeTime, historyLength }
  },
  result: async (handle) => ({ output: await handle.result() })
}

const server = createServer((request, response) => {
  const [, what, id] = (request.url ?? '').split('/')
  const read = reads[what]
  if (read === undefined || id === undefined) return response.writeHead(404).end()
  read(client.workflow.getHandle(decodeURIComponent(id))).then(
    (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
    (err) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(err))
  )
})
server.listen(0, '127.0.0.1', () => { process.send?.({ ready: `http://127.0.0.1:${server.address().port}` }) })
