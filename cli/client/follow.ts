/**
 * Following a workflow to its end: the stream of its run, then of each run it continues as (unless
 * a run is pinned), rendered as progress; and printing a closed run's result.
 */
import type { FlowportClient } from '@flowport/client'
import { EXIT } from './exit-codes.js'
import { info, isTty, paint, printJson, useColor } from './output.js'
import { ProgressRenderer, type FollowEvent } from './progress.js'

export type WorkflowResult = Awaited<ReturnType<FlowportClient['result']>>

export async function * followChain (client: FlowportClient, workflowId: string, options: { runId?: string, pinned: boolean, signal: AbortSignal }): AsyncGenerator<FollowEvent> {
  let runId = options.runId
  for (;;) {
    let next: string | undefined
    for await (const event of client.follow(workflowId, { runId, signal: options.signal })) {
      yield event
      if (event.event === 'done') next = event.data.newRunId
    }
    if (options.pinned || next === undefined) return
    runId = next
  }
}

/** Progress lines on stderr: symbols and colour on a terminal, plain lines otherwise. */
export function progressRenderer (): ProgressRenderer {
  return new ProgressRenderer({ terminal: isTty(), color: useColor(), write: info })
}

/** The output (or the error) of a closed run; exit 0 when it completed, 1 otherwise. */
export function printResult (result: WorkflowResult, json: boolean, verbose: boolean): number {
  const completed = result.status === 'completed'
  if (json) printJson(result)
  else if (completed && result.outputRef !== undefined) {
    // A large output (docs/large-payloads.md): the URL on stdout, so `curl "$(flowport run …)"` fetches it.
    process.stdout.write(`${result.outputRef.url}\n`)
    info(`The output (${result.outputRef.bytes} bytes) is at that presigned URL until ${result.outputRef.expiresAt}`)
  } else if (completed) printJson(result.output)
  else {
    info(`${paint('red', `Workflow ${result.status}`)}: ${result.error ?? 'no error recorded'} (workflow ${result.workflowId}, run ${result.runId})`)
    if (verbose && result.errorDetails) info(JSON.stringify(result.errorDetails, null, 2))
  }
  return completed ? EXIT.ok : EXIT.workflowFailed
}
