/**
 * The engine keeps its event batches whole, so its pages can hold more events than asked: a page
 * here holds at most `pageSize`, and its token says where in the engine's page the next starts.
 * The token also names the run, so unpinned paging stays on its run when a new one becomes current.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import type { HistoryPage } from '../../../schemas/history.js'
import { isTerminalStatus } from '@flowport/core/run'
import { validationError } from '../../../lib/api-error.js'
import { type Runs, historyWorkflowOf } from '../runs/index.js'
import { grpcCode } from '../engine/index.js'
import { decodePageToken, encodePageToken } from '../../../lib/page-token.js'
import { eventIdOf, eventsToJson, type RawEvent } from './events.js'
import { nextEngineToken, type HistoryReader } from './reader.js'

export interface PageRequest {
  workflowId: string
  runId?: string
  pageSize: number
  pageToken?: string
  includePayloads: boolean
  signal?: AbortSignal
}

/** Empty token = the engine's first page. */
interface Position { runId: string, nextEventId: number, engineToken: Uint8Array }

const RUN_POSITION = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([1-9][0-9]{0,15})$/

const badToken = (message: string) => validationError([{ path: '/pageToken', in: 'querystring', message }])

// A token is bound to its workflow id: another workflow's token is refused like a forged one.
function decodePosition (workflowId: string, value: string): Position {
  const token = decodePageToken(workflowId, value)
  const match = token && RUN_POSITION.exec(token.state)
  if (!token || !match) throw badToken('Not a page token of this workflow')
  return { runId: match[1], nextEventId: Number(match[2]), engineToken: token.engineToken }
}

const encodePosition = (workflowId: string, { runId, nextEventId, engineToken }: Position) =>
  encodePageToken(workflowId, { state: `${runId}:${nextEventId}`, engineToken })

export interface PageDeps {
  runs: Pick<Runs, 'describeRun'>
  read: HistoryReader
}

export async function readHistoryPage ({ runs, read }: PageDeps, request: PageRequest): Promise<HistoryPage> {
  const { workflowId, pageSize, signal } = request
  const from = request.pageToken === undefined ? undefined : decodePosition(workflowId, request.pageToken)
  if (from && request.runId && from.runId !== request.runId.toLowerCase()) throw badToken('The page token belongs to another run')
  const workflow = historyWorkflowOf(await runs.describeRun({ workflowId, runId: request.runId ?? from?.runId, signal }))
  const { runId } = workflow

  // A closed run's history is complete: past its last event there is nothing more to read.
  const complete = isTerminalStatus(workflow.status)
  const events: RawEvent[] = []
  let engineToken = from?.engineToken ?? new Uint8Array()
  let nextEventId = from?.nextEventId ?? 1
  let next: Position | null = null
  for (;;) {
    const page = await read({ workflowId, runId, pageToken: engineToken.length > 0 ? engineToken : undefined, wait: false, pageSize, signal })
      // The engine rejects a page token that does not fit the run (INVALID_ARGUMENT): the client's fault.
      .catch((err: unknown) => { throw from && grpcCode(err) === GrpcStatus.INVALID_ARGUMENT ? badToken('The engine rejected the page token') : err })
    const fresh = page.events.filter((e) => eventIdOf(e) >= nextEventId)
    const room = pageSize - events.length
    events.push(...fresh.slice(0, room))
    if (events.length > 0) nextEventId = eventIdOf(events[events.length - 1]) + 1
    const after = nextEngineToken(page)
    if (complete && nextEventId > workflow.historyLength) {
      next = null
      break
    }
    if (fresh.length > room) {
      // The rest of this engine page comes next: it is read again from the same token.
      next = { runId, nextEventId, engineToken }
      break
    }
    if (after === undefined) {
      next = null
      break
    }
    engineToken = after
    next = { runId, nextEventId, engineToken }
    // An empty engine page with a token (an open run's current end) ends this page, never spins.
    if (events.length === pageSize || page.events.length === 0) break
  }
  return { workflow, events: eventsToJson(events, request.includePayloads), nextPageToken: next ? encodePosition(workflowId, next) : null }
}
