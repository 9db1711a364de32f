/**
 * `reset` ("retry from here": a new run continues the old one from a step) and `batch` (one
 * action on every run a filter matches). docs/failed-runs.md.
 */
import type { Command } from 'commander'
import type { ResetFrom } from '@flowport/client'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { readInput } from './input.js'
import { info } from './output.js'
import { retryRateLimited } from './retry-after.js'

/** `failed-step`, `start`, `last-workflow-task`, `step:<name>` or `step:<name>#<occurrence>`. */
export function parseFrom (value: string): ResetFrom {
  const named = { 'failed-step': 'failedStep', start: 'start', 'last-workflow-task': 'lastWorkflowTask' } as const
  if (value in named) return named[value as keyof typeof named]
  const m = /^step:(.+?)(?:#(\d+))?$/.exec(value)
  if (m === null) throw new CliError(`InputError: --from must be failed-step, start, last-workflow-task or step:<name>[#<n>], got "${value}"`, EXIT.usage)
  return m[2] === undefined ? { step: m[1] } : { step: m[1], occurrence: Number(m[2]) }
}

interface BatchOptions extends CommonOptions {
  workflow?: string
  status?: string
  catalog?: string
  query?: string
  reason: string
  payload?: string
  from?: string
}

export function registerReset (program: Command): void {
  clientCommand(program, 'reset <id>', 'retry a run from a step: a new run keeps what the earlier steps did and runs the rest again')
    .option('--from <point>', 'failed-step (default), start, last-workflow-task, or step:<name>[#<n>]')
    .option('--run <runId>', 'this run instead of the latest run of the id')
    .option('--reason <text>', 'recorded in both runs\' histories')
    .option('--reapply <kind>', 'signals and updates received after the point to deliver again: all (default), signals, updates, none')
    .action(action(async (id: string, options: CommonOptions & { from?: string, reason?: string, reapply?: 'all' | 'signals' | 'updates' | 'none' }) => {
      // Parsed here, not by commander: action() turns a CliError into its one-line message and exit code.
      const from = options.from === undefined ? undefined : parseFrom(options.from)
      const res = await clientOf(options).reset(id, { runId: options.run, from, reason: options.reason, reapply: options.reapply })
      return answer(options, res, () => {
        const step = res.resetFrom.step === null ? '' : ` from step ${res.resetFrom.step}`
        info(`Workflow ${res.workflowId}: run ${res.resetFrom.runId} reset${step}; new run ${res.runId}. Follow it with: flowport tail ${res.workflowId}`)
      })
    }))

  const group = program.command('batch').description('act on every run a filter matches (terminate, stop, signal, reset, status, cancel)')
  const batch = (spec: string, description: string) => clientCommand(group, spec, description)
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--status <status>', 'only runs in this status (e.g. running)')
    .option('--catalog <id>', 'only runs of this catalog')
    .option('--query <visibility query>', 'a Temporal visibility query instead of the filters above')
    .requiredOption('--reason <text>', 'recorded with the batch and in each run\'s history')

  const run = async (options: BatchOptions, body: { action: 'terminate' | 'stop' | 'signal' | 'reset', signal?: { name: string, payload?: unknown }, reset?: { from: 'start' | 'lastWorkflowTask' } }) => {
    const filter = options.query !== undefined
      ? { query: options.query }
      : JSON.parse(JSON.stringify({ workflowName: options.workflow, status: options.status, catalog: options.catalog })) as Record<string, never>
    const client = clientOf(options)
    const started = await retryRateLimited(`Batch ${body.action}`, async () => await client.startBatch({ ...body, filter, reason: options.reason }))
    return answer(options, started, `Batch ${started.batchId}: ${body.action} on ${started.matched} matching run(s). Progress: flowport batch status ${started.batchId}`)
  }

  batch('terminate', 'terminate every run a filter matches').action(action(async (options: BatchOptions) => await run(options, { action: 'terminate' })))
  batch('stop', 'gracefully stop every run a filter matches').action(action(async (options: BatchOptions) => await run(options, { action: 'stop' })))
  batch('signal <name>', 'send a signal to every run a filter matches')
    .option('--payload <json>', 'the signal\'s payload: inline JSON, @file.json, or - for stdin')
    .action(action(async (name: string, options: BatchOptions) => {
      const payload = await readInput(options.payload, 'payload')
      return await run(options, { action: 'signal', signal: payload === undefined ? { name } : { name, payload } })
    }))
  batch('reset', 'reset every run a filter matches (from start or last-workflow-task)')
    .option('--from <point>', 'start (default) or last-workflow-task')
    .action(action(async (options: BatchOptions) => await run(options, { action: 'reset', reset: { from: options.from === 'last-workflow-task' ? 'lastWorkflowTask' : 'start' } })))

  clientCommand(group, 'status <batchId>', 'where a batch operation stands')
    .action(action(async (batchId: string, options: CommonOptions) => {
      const status = await clientOf(options).batch(batchId)
      return answer(options, status, `Batch ${status.batchId} (${status.action}): ${status.state}, ${status.completed} of ${status.total} done, ${status.failed} failed.`)
    }))
  clientCommand(group, 'cancel <batchId>', 'stop a batch operation (runs already acted on stay as they are)')
    .action(action(async (batchId: string, options: CommonOptions) => {
      const status = await clientOf(options).stopBatch(batchId)
      return answer(options, status, `Batch ${status.batchId} (${status.action}): ${status.state}, ${status.completed} of ${status.total} done.`)
    }))
}
