/**
 * Command input: inline JSON, `@file.json`, or `-` for stdin. A parse failure is a usage error.
 */
import { readFile } from 'node:fs/promises'
import { text as readAll } from 'node:stream/consumers'
import { CliError, EXIT } from './exit-codes.js'

/** The JSON value of an input argument; `undefined` when the argument was not given. */
export async function readInput (arg: string | undefined, what = 'input'): Promise<unknown> {
  if (arg === undefined) return undefined
  let text: string
  let source: string
  if (arg === '-') {
    text = await readAll(process.stdin)
    source = 'stdin'
  } else if (arg.startsWith('@')) {
    source = arg.slice(1)
    try {
      text = await readFile(source, 'utf8')
    } catch (err) {
      throw new CliError(`InputError: cannot read ${what} file ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage)
    }
  } else {
    text = arg
    source = 'the argument'
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new CliError(`InputError: ${what} from ${source} is not valid JSON: ${(err as Error).message}`, EXIT.usage)
  }
}

/** A positive integer option (milliseconds, counts). */
export function positiveInteger (name: string) {
  return (value: string): number => {
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`InputError: ${name} must be a positive integer, got "${value}"`, EXIT.usage)
    return n
  }
}
