/**
 * What every client command shares: the connection options, the client, and one place that turns
 * a thrown error into a single stderr line and an exit code (exit-codes.ts).
 */
import { Command } from 'commander'
import { DEFAULT_BASE_URL, FlowportClient } from '@flowport/client'
import { describeError, EXIT, exitCodeOf } from './exit-codes.js'
import { info, printJson } from './output.js'

export interface CommonOptions {
  url?: string
  token?: string
  json?: boolean
  verbose?: boolean
  catalog?: string
  run?: string
}

/** A client command with --url, --token, --json and --verbose. */
export function clientCommand (program: Command, spec: string, description: string): Command {
  return program.command(spec)
    .description(description)
    .option('--url <url>', `API base URL (default: FLOWPORT_URL, else ${DEFAULT_BASE_URL})`)
    .option('--token <token>', 'API token (default: FLOWPORT_TOKEN)')
    .option('--json', 'print one JSON document on stdout')
    .option('--verbose', 'add details to errors (HTTP status, response body)')
}

export function clientOf (options: CommonOptions): FlowportClient {
  return new FlowportClient({ baseUrl: options.url ?? process.env.FLOWPORT_URL ?? DEFAULT_BASE_URL, token: options.token })
}

/**
 * Wraps an action: its return value is the exit code; a throw prints one line (no stack trace
 * unless --verbose) and exits with the code of the error.
 */
export function action<A extends unknown[]> (run: (...args: A) => Promise<number>) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as Command
    try {
      process.exitCode = await run(...args)
    } catch (err) {
      process.stderr.write(`${describeError(err, command.opts<CommonOptions>().verbose === true)}\n`)
      process.exitCode = exitCodeOf(err)
    }
  }
}

/** A command's answer, exit 0: `value` as JSON with --json; else `human`, a line on stderr or what it prints. */
export function answer (options: CommonOptions, value: unknown, human: string | (() => void)): number {
  if (options.json === true) printJson(value)
  else if (typeof human === 'string') info(human)
  else human()
  return EXIT.ok
}
