/**
 * The SSE fan-out's floor (bench/latency.ts): a minimal SSE server on node:http in its own process,
 * in place of the API (bench/api-process.ts) and answering the same IPC commands. No Fastify, no
 * auth, no hubs, subscriptions, buffers or backpressure: per run, ONE raw engine long-poll loop
 * that writes each page of new events as one pre-serialized `history` frame (plugins/app/history/event-chunk.ts,
 * so the bytes, the `id:` cursors and the serialization cost are Flowport's) to every connected
 * socket, then `done` and the end of every response. It serves Flowport's stream path
 * (`GET /workflow/{id}/history/stream`, the current run), so bench/sse.ts' clients read it unchanged;
 * a client that joins late gets the frames so far in one write. What this server cannot go below
 * with the same clients on the same cores, no SSE server on Node can.
 */
import { createServer, type ServerResponse } from 'node:http'
import { Connection } from '@temporalio/client'
import { EventChunk } from '../plugins/app/history/event-chunk.js'
import { encodeCursor } from '../plugins/app/history/cursor.js'
import { eventIdOf, terminalOf, type Terminal } from '../plugins/app/history/events.js'

const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default'
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS })
const engine = connection.workflowService

const HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' }

interface Run {
  /** Every frame written so far, for clients that join later. */
  frames: Buffer[]
  clients: Set<ServerResponse>
  /** The `done` frame, once the history is exhausted. */
  done?: Buffer
}

const runs = new Map<string, Run>()
const metrics = { upstreamCalls: 0, longPolls: 0 }
/** eventTime → page read, per event, while tracking (the same figure as the API's read lag). */
let readLags: number[] | undefined

function broadcast (run: Run, frame: Buffer): void {
  run.frames.push(frame)
  for (const res of run.clients) res.write(frame)
}

async function follow (workflowId: string, run: Run): Promise<void> {
  metrics.upstreamCalls++
  const described = await engine.describeWorkflowExecution({ namespace, execution: { workflowId } })
  const runId = described.workflowExecutionInfo!.execution!.runId!
  let token: Uint8Array | undefined
  let head = 0
  let terminal: Terminal | undefined
  for (;;) {
    metrics.upstreamCalls++
    metrics.longPolls++
    const page = await engine.getWorkflowExecutionHistory({ namespace, execution: { workflowId, runId }, waitNewEvent: true, nextPageToken: token })
    const fresh = (page.history?.events ?? []).filter((e) => eventIdOf(e) > head)
    if (fresh.length > 0) {
      if (readLags) {
        const wall = Date.now()
        for (const e of fresh) readLags.push(wall - (Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6)))
      }
      head = eventIdOf(fresh[fresh.length - 1])
      for (const e of fresh) terminal ??= terminalOf(e)
      broadcast(run, new EventChunk(runId, fresh).frameAfter(0, false))
    }
    if (!page.nextPageToken?.length) break
    token = page.nextPageToken
  }
  const data = terminal ? { reason: terminal.reason, ...(terminal.newRunId ? { newRunId: terminal.newRunId } : {}) } : { reason: 'unknown' }
  run.done = Buffer.from(`id: ${encodeCursor({ runId, eventId: head, done: true })}\nevent: done\ndata: ${JSON.stringify(data)}\n\n`)
  broadcast(run, run.done)
  for (const res of run.clients) res.end()
  run.clients.clear()
}

const STREAM = /^\/workflow\/([^/?]+)\/history\/stream(?:\?|$)/

const server = createServer((req, res) => {
  const match = STREAM.exec(req.url ?? '')
  if (!match) { res.writeHead(404).end(); return }
  const workflowId = decodeURIComponent(match[1])
  let run = runs.get(workflowId)
  if (!run) {
    const started: Run = { frames: [], clients: new Set() }
    runs.set(workflowId, (run = started))
    follow(workflowId, started).catch((err: unknown) => {
      console.error('bare fan-out: following', workflowId, 'failed:', err)
      for (const c of started.clients) c.end()
      runs.delete(workflowId)
    })
  }
  res.writeHead(200, HEADERS)
  if (run.frames.length > 0) res.write(Buffer.concat(run.frames))
  else res.flushHeaders()
  if (run.done) { res.end(); return }
  const { clients } = run
  clients.add(res)
  res.once('close', () => clients.delete(res))
})
server.listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
const { port } = server.address() as { port: number }

const open = () => [...runs.values()].filter((r) => !r.done)
type Command = { id: number, cmd: string }
process.on('message', (message: Command) => {
  const reply = (result: unknown) => process.send?.({ id: message.id, result })
  if (message.cmd === 'metrics') {
    const subscribers = open().reduce((n, r) => n + r.clients.size, 0)
    reply({ ...metrics, replayCalls: 0, inFlight: open().length, hubs: open().length, subscribers, openStreams: subscribers })
  } else if (message.cmd === 'trackLags') { readLags = []; reply(true) } else if (message.cmd === 'lags') {
    // No per-client delivery lag: timing each write would add work this floor should not have.
    reply({ read: readLags ?? [], delivery: [] })
  } else {
    reply({ error: `the bare fan-out server has no command ${message.cmd}` })
  }
})
process.send?.({ ready: `http://127.0.0.1:${port}` })
process.once('SIGTERM', () => { server.closeAllConnections(); server.close(); void connection.close().finally(() => process.exit(0)) })
