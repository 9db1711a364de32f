/**
 * `signal`, `query` and `update` a running workflow; the payload is inline JSON, @file.json or -.
 * `update-state` reads how an update sent with `update --async` stands.
 */
import type { Command } from 'commander'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { EXIT } from './exit-codes.js'
import { readInput } from './input.js'
import { info, paint, printJson } from './output.js'

export const IF_MATCH_HELP = 'act only if the latest run is this one (a run id or a status ETag); otherwise PreconditionFailedError, exit 2'

const payloadHelp = '\nPayload: inline JSON, @file.json, or - for stdin; omitted = the handler gets no argument.'

export function registerHandlers (program: Command): void {
  clientCommand(program, 'signal <id> <name> [payload]', 'send a signal to the latest run of a workflow')
    .option('--if-match <runId>', IF_MATCH_HELP)
    .addHelpText('after', payloadHelp)
    .action(action(async (id: string, name: string, payload: string | undefined, options: CommonOptions & { ifMatch?: string }) => {
      const sent = await clientOf(options).signal(id, name, await readInput(payload, 'payload'), { ifMatch: options.ifMatch })
      return answer(options, sent, `Signal ${name} delivered to workflow ${sent.workflowId} (run ${sent.runId}).`)
    }))

  for (const kind of ['query', 'update'] as const) {
    const command = clientCommand(program, `${kind} <id> <name> [payload]`, kind === 'query' ? 'query a workflow and print the answer' : 'send an update, wait for its handler and print what it returned')
    if (kind === 'update') {
      command.option('--if-match <runId>', IF_MATCH_HELP)
        .option('--async', 'return once the workflow accepted the update (Prefer: respond-async) and print its update id')
    }
    command
      .addHelpText('after', payloadHelp)
      .action(action(async (id: string, name: string, payload: string | undefined, options: CommonOptions & { ifMatch?: string, async?: boolean }) => {
        if (options.async === true) {
          const accepted = await clientOf(options).updateAsync(id, name, await readInput(payload, 'payload'), { ifMatch: options.ifMatch })
          return answer(options, accepted, `Update ${name} accepted by workflow ${accepted.workflowId} (run ${accepted.runId}); update id ${accepted.updateId}.`)
        }
        const answered = await clientOf(options)[kind](id, name, await readInput(payload, 'payload'), { ifMatch: options.ifMatch })
        printJson(options.json ? answered : answered.result)
        return EXIT.ok
      }))
  }

  clientCommand(program, 'update-state <id> <updateId>', 'print how an update sent with --async stands: its result once its handler returned (exit 4 while it runs, 1 if it threw)')
    .action(action(async (id: string, updateId: string, options: CommonOptions) => {
      const state = await clientOf(options).updateState(id, updateId)
      // The exit codes of `result`: 0 done, 1 the handler threw, 4 still running.
      const code = state.state === 'completed' ? EXIT.ok : state.state === 'failed' ? EXIT.workflowFailed : EXIT.runTimeout
      if (options.json) printJson(state)
      else if (state.state === 'completed') printJson(state.result)
      else if (state.state === 'failed') info(`${paint('red', 'Update failed')}: ${state.error ?? 'no error recorded'} (workflow ${state.workflowId}, run ${state.runId}, update ${state.updateId})`)
      else info(`Update ${state.updateId} is accepted and its handler still runs (workflow ${state.workflowId}, run ${state.runId}); ask again later.`)
      return code
    }))
}
