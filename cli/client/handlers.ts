/**
 * `signal`, `query` and `update` a running workflow; the payload is inline JSON, @file.json or -.
 */
import type { Command } from 'commander'
import { action, clientCommand, clientOf, type CommonOptions } from './command.js'
import { EXIT } from './exit-codes.js'
import { readInput } from './input.js'
import { info, printJson } from './output.js'

const payloadHelp = '\nPayload: inline JSON, @file.json, or - for stdin; omitted = the handler gets no argument.'

export function registerHandlers (program: Command): void {
  clientCommand(program, 'signal <id> <name> [payload]', 'send a signal to the latest run of a workflow')
    .addHelpText('after', payloadHelp)
    .action(action(async (id: string, name: string, payload: string | undefined, options: CommonOptions) => {
      const sent = await clientOf(options).signal(id, name, await readInput(payload, 'payload'))
      if (options.json) printJson(sent)
      else info(`Signal ${name} delivered to workflow ${sent.workflowId} (run ${sent.runId}).`)
      return EXIT.ok
    }))

  for (const kind of ['query', 'update'] as const) {
    clientCommand(program, `${kind} <id> <name> [payload]`, kind === 'query' ? 'query a workflow and print the answer' : 'send an update, wait for its handler and print what it returned')
      .addHelpText('after', payloadHelp)
      .action(action(async (id: string, name: string, payload: string | undefined, options: CommonOptions) => {
        const answer = await clientOf(options)[kind](id, name, await readInput(payload, 'payload'))
        printJson(options.json ? answer : answer.result)
        return EXIT.ok
      }))
  }
}
