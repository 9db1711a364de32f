/**
 * `flowport run` (start, follow with live progress, print the result) and `flowport start`.
 */
import { randomUUID } from 'node:crypto'
import type { Command } from 'commander'
import { FlowportError } from '@flowport/client'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { followChain, printResult, progressRenderer, type WorkflowResult } from './follow.js'
import { positiveInteger, readInput } from './input.js'
import { detached, onInterrupt } from './interrupt.js'
import { info, printJson } from './output.js'

interface RunOptions extends CommonOptions {
  id?: string
  upload?: boolean
  timeout?: number
  progress: boolean
  stopOnInterrupt?: boolean
}

const stillRunning = (workflowId: string, why: string) =>
  new CliError(`${why}: workflow ${workflowId} keeps running. Follow it with: flowport tail ${workflowId}`, EXIT.runTimeout)

/** `--upload`: the input goes to the payload store first (POST /payloads), the start names it by `inputRef`. */
async function inputRefOf (client: ReturnType<typeof clientOf>, input: unknown, upload: boolean | undefined): Promise<string | undefined> {
  return upload === true ? await client.uploadInput(input) : undefined
}

async function run (workflow: string, inputArg: string | undefined, options: RunOptions): Promise<number> {
  const input = await readInput(inputArg)
  const client = clientOf(options)
  const inputRef = await inputRefOf(client, input, options.upload)
  // Chosen here so that an interrupted or timed-out wait can always name the run.
  const workflowId = options.id ?? randomUUID()
  const interrupt = onInterrupt()
  const timer = new AbortController()
  const timeout = options.timeout === undefined ? undefined : setTimeout(() => { timer.abort() }, options.timeout)
  const signal = AbortSignal.any([interrupt.signal, timer.signal])
  const interrupted = async () => {
    if (!options.stopOnInterrupt) return detached(workflowId)
    const stopped = await client.stop(workflowId)
    info(`Stop requested: workflow ${workflowId} (outcome ${stopped.outcome}).`)
    return EXIT.interrupted
  }
  try {
    let result: WorkflowResult
    if (options.json === true || !options.progress) {
      // One request to POST /workflow/run; its `timeout` is the server's wait (408 when it elapses).
      try {
        result = await client.run(workflow, input, { workflowId, catalog: options.catalog, timeout: options.timeout, inputRef, signal: interrupt.signal })
      } catch (err) {
        if (interrupt.fired) return await interrupted()
        if (err instanceof FlowportError && err.status === 408) throw stillRunning(workflowId, `${err.error}: ${err.message}`)
        throw err
      }
    } else {
      const started = await client.start(workflow, input, { workflowId, catalog: options.catalog, inputRef })
      if (interrupt.fired) return await interrupted()
      const progress = progressRenderer()
      try {
        for await (const event of followChain(client, workflowId, { runId: started.runId, pinned: false, signal })) progress.render(event)
      } catch (err) {
        if (!signal.aborted) throw err
      }
      // An aborted follow may end quietly or throw the abort reason: either way, say why it stopped.
      if (signal.aborted) {
        if (interrupt.fired) return await interrupted()
        throw stillRunning(workflowId, `Timed out after ${options.timeout} ms`)
      }
      result = await client.result(workflowId)
    }
    return printResult(result, options.json === true, options.verbose === true)
  } finally {
    clearTimeout(timeout)
    interrupt.dispose()
  }
}

interface StartOptions extends CommonOptions { id?: string, update?: string, updatePayload?: string, upload?: boolean }

async function start (workflow: string, inputArg: string | undefined, options: StartOptions): Promise<number> {
  const input = await readInput(inputArg)
  if (options.update !== undefined) return await updateWithStart(workflow, input, options.update, options)
  if (options.updatePayload !== undefined) throw new CliError('InputError: --update-payload needs --update <name>', EXIT.usage)
  const client = clientOf(options)
  const inputRef = await inputRefOf(client, input, options.upload)
  const started = await client.start(workflow, input, { workflowId: options.id, catalog: options.catalog, inputRef })
  return answer(options, started, () => {
    process.stdout.write(`${started.workflowId}\n`)
    info(`Started run ${started.runId}. Follow it with: flowport tail ${started.workflowId}`)
  })
}

/** `start --update`: the open run of `--id` takes the update, or a run starts and takes it; prints the update's result. */
async function updateWithStart (workflow: string, input: unknown, name: string, options: StartOptions): Promise<number> {
  if (options.id === undefined) throw new CliError('InputError: --update needs --id <workflowId>, the id whose open run takes the update', EXIT.usage)
  const payload = await readInput(options.updatePayload, 'update payload')
  const updated = await clientOf(options).updateWithStart(workflow, input, { name, ...(payload === undefined ? {} : { payload }) }, { workflowId: options.id, catalog: options.catalog })
  return answer(options, updated, () => {
    printJson(updated.result)
    info(`Update ${name} ran in run ${updated.runId} of ${updated.workflowId}.`)
  })
}

const UPLOAD_HELP = 'upload the input to the payload store first and start with its reference: for inputs above the API\'s body limit (docs/large-payloads.md)'

export function registerRun (program: Command): void {
  clientCommand(program, 'run <workflow> [input]', 'run a workflow and wait for its result, with live step progress on a terminal')
    .option('--id <workflowId>', 'workflow id (default: a random UUID)')
    .option('--catalog <catalog>', 'catalog to run on (default: the API\'s SERVICE_CATALOG_ID)')
    .option('--timeout <ms>', 'stop waiting after this long: exit 4, the run goes on', positiveInteger('--timeout'))
    .option('--no-progress', 'wait through POST /workflow/run instead of following the history stream')
    .option('--stop-on-interrupt', 'Ctrl-C stops the run (graceful stop) instead of detaching')
    .option('--upload', UPLOAD_HELP)
    .addHelpText('after', '\nInput: inline JSON, @file.json, or - for stdin. --json implies --no-progress and prints the WorkflowResult. ' +
      'An output too large to answer inline is printed as its presigned download URL.')
    .action(action(run))

  clientCommand(program, 'start <workflow> [input]', 'start a workflow and print its id without waiting')
    .option('--id <workflowId>', 'workflow id (default: a random UUID)')
    .option('--catalog <catalog>', 'catalog to run on (default: the API\'s SERVICE_CATALOG_ID)')
    .option('--upload', UPLOAD_HELP)
    .option('--update <name>', 'update-with-start: the open run of --id takes this update, or a run starts and takes it; prints its result')
    .option('--update-payload <json>', 'the update\'s payload: inline JSON, @file.json, or - for stdin')
    .action(action(start))
}
