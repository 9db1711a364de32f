/**
 * `flowport tail <id>`: follow a workflow's history from its start to its end with live progress
 * (through API restarts: the client resumes from the last event id), then print its result.
 */
import type { Command } from 'commander'
import { action, clientCommand, clientOf, type CommonOptions } from './command.js'
import { EXIT } from './exit-codes.js'
import { followChain, printResult, progressRenderer } from './follow.js'
import { detached, onInterrupt } from './interrupt.js'
import type { FollowEvent } from './progress.js'
import { printJson } from './output.js'

type HistoryEvent = Extract<FollowEvent, { event: 'history' }>['data'][number]
type Done = Extract<FollowEvent, { event: 'done' }>['data']

async function tail (workflowId: string, options: CommonOptions): Promise<number> {
  const client = clientOf(options)
  const interrupt = onInterrupt()
  const progress = options.json ? undefined : progressRenderer()
  const runs: Array<{ runId: string, events: HistoryEvent[], done: Done | null }> = []
  try {
    for await (const event of followChain(client, workflowId, { runId: options.run, pinned: options.run !== undefined, signal: interrupt.signal })) {
      progress?.render(event)
      if (event.event === 'workflow' && runs.at(-1)?.runId !== event.data.runId) runs.push({ runId: event.data.runId, events: [], done: null })
      else if (event.event === 'history') runs.at(-1)?.events.push(...event.data)
      else if (event.event === 'done') { const last = runs.at(-1); if (last) last.done = event.data }
    }
  } catch (err) {
    if (!interrupt.fired) throw err
  } finally {
    interrupt.dispose()
  }
  // An aborted follow may end quietly or throw the abort reason.
  if (interrupt.fired) return detached(workflowId)
  const last = runs.at(-1)
  if (options.json) {
    printJson({ workflowId, runs })
    return last?.done?.reason === 'WORKFLOW_EXECUTION_COMPLETED' || last?.done?.reason === 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW' ? EXIT.ok : EXIT.workflowFailed
  }
  if (last?.done?.reason === 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW') return EXIT.ok
  return printResult(await client.result(workflowId, { runId: last?.runId }), false, options.verbose === true)
}

export function registerTail (program: Command): void {
  clientCommand(program, 'tail <id>', 'follow a workflow from its start to its end with live progress (Ctrl-C detaches), then print its result')
    .option('--run <runId>', 'follow this run only (not the runs it continues as)')
    .addHelpText('after', '\n--json prints one document at the end: {workflowId, runs: [{runId, events, done}]}.')
    .action(action(tail))
}
