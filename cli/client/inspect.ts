/**
 * `status`, `result`, `input` and `trace` of a workflow's latest run, or of the run named by --run.
 */
import type { Command } from 'commander'
import { FlowportError } from '@flowport/client'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { printResult } from './follow.js'
import { info, printJson, printTable } from './output.js'

const withRun = (command: Command) => command.option('--run <runId>', 'this run instead of the latest run of the id')

export function registerInspect (program: Command): void {
  withRun(clientCommand(program, 'status <id>', 'show the status of a run'))
    .action(action(async (id: string, options: CommonOptions) => {
      const status = await clientOf(options).status(id, { runId: options.run })
      // The version as the engine writes it (`<deployment>:<buildId>`, what `flowport runs --version` takes); other nested
      // values (resetFrom, attention, webhook) as compact JSON, not "[object Object]".
      const text = (k: string, v: unknown): string => {
        if (v === null) return '-'
        if (k === 'version') return `${status.version!.deploymentName}:${status.version!.buildId}`
        return typeof v === 'object' ? JSON.stringify(v) : String(v)
      }
      return answer(options, status, () => { printTable(['field', 'value'], Object.entries(status).map(([k, v]) => [k, text(k, v)])) })
    }))

  withRun(clientCommand(program, 'result <id>', 'print the output of a closed run (exit 1 unless it completed)'))
    .action(action(async (id: string, options: CommonOptions) => {
      try {
        return printResult(await clientOf(options).result(id, { runId: options.run }), options.json === true, options.verbose === true)
      } catch (err) {
        // 424: the run is still open.
        if (err instanceof FlowportError && err.status === 424) throw new CliError(`${err.error}: ${err.message}. Follow it with: flowport tail ${id}`, EXIT.runTimeout, err.body)
        throw err
      }
    }))

  withRun(clientCommand(program, 'input <id>', 'print the input a run was started with'))
    .action(action(async (id: string, options: CommonOptions) => {
      const input = await clientOf(options).input(id, { runId: options.run })
      printJson(options.json ? input : input.input)
      return EXIT.ok
    }))

  withRun(clientCommand(program, 'trace <id>', 'print the trace of a run (its steps, attempts, inputs and outputs) as JSON'))
    .action(action(async (id: string, options: CommonOptions) => {
      const log = await clientOf(options).trace(id, { runId: options.run })
      printJson(log)
      if (log.source === 'history') info('built from the run\'s history: its worker does not run Flowport\'s trace writer (attempts as the history records them)')
      return EXIT.ok
    }))
}
