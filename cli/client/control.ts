/**
 * `stop` (graceful: the workflow's cleanup runs) and `terminate` (at once).
 */
import type { Command } from 'commander'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { positiveInteger } from './input.js'
import { IF_MATCH_HELP } from './handlers.js'

export function registerControl (program: Command): void {
  clientCommand(program, 'stop <id>', 'gracefully stop a run: its cleanup runs and it ends canceled')
    .option('--run <runId>', 'this run instead of the latest run of the id')
    .option('--escalate-after <ms>', 'wait up to this long for the run to close, then terminate it', positiveInteger('--escalate-after'))
    .option('--reason <text>', 'recorded in the run\'s history with the cancellation request')
    .option('--if-match <runId>', IF_MATCH_HELP)
    .action(action(async (id: string, options: CommonOptions & { escalateAfter?: number, reason?: string, ifMatch?: string }) => {
      const stopped = await clientOf(options).stop(id, { runId: options.run, terminateAfterMs: options.escalateAfter, reason: options.reason, ifMatch: options.ifMatch })
      return answer(options, stopped, `Workflow ${stopped.workflowId} (run ${stopped.runId}): ${stopped.outcome.replace('_', ' ')}, status ${stopped.status}.`)
    }))

  clientCommand(program, 'terminate <id>', 'terminate a run at once (no cleanup)')
    .option('--run <runId>', 'this run instead of the latest run of the id')
    .option('--reason <text>', 'recorded in the run\'s history and in its result\'s error')
    .option('--if-match <runId>', IF_MATCH_HELP)
    .action(action(async (id: string, options: CommonOptions & { reason?: string, ifMatch?: string }) => {
      const terminated = await clientOf(options).terminate(id, { runId: options.run, reason: options.reason, ifMatch: options.ifMatch })
      return answer(options, terminated, `Workflow ${terminated.workflowId} (run ${terminated.runId}) terminated.`)
    }))
}
