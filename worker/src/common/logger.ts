/**
 * The worker's logger: one line per entry on stderr, at or above LOG_LEVEL. JSON in production
 * (pino's fields: numeric `level`, `time` in epoch ms, `msg`, then the entry's fields, as the API
 * writes them, so one log pipeline reads both), readable `[flowport] …` lines otherwise (npm start).
 */
import type { LogLevel } from '@flowport/core/settings'

/** Any object with these four methods (pino and console-like loggers fit). */
export interface Logger {
  debug: (message: string, meta?: Record<string, unknown>) => void
  info: (message: string, meta?: Record<string, unknown>) => void
  warn: (message: string, meta?: Record<string, unknown>) => void
  error: (message: string, meta?: Record<string, unknown>) => void
}

/** pino's numbers. */
const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity }
const READABLE_PREFIX: Record<keyof Logger, string> = { debug: 'debug: ', info: '', warn: 'warning: ', error: 'error: ' }

export interface LoggerOptions {
  /** Entries below it are dropped (default info). */
  level?: LogLevel
  /** JSON lines instead of readable ones (default false). */
  json?: boolean
  /** Where a line goes, without its newline (default: stderr). */
  write?: (line: string) => void
}

export function createLogger ({ level = 'info', json = false, write = (line) => { process.stderr.write(line + '\n') } }: LoggerOptions = {}): Logger {
  const entry = (name: keyof Logger) => {
    const value = LEVEL_VALUES[name]
    if (value < LEVEL_VALUES[level]) return () => {}
    return json
      ? (message: string, meta?: Record<string, unknown>) => { write(jsonLine({ level: value, time: Date.now(), msg: message }, meta)) }
      : (message: string, meta?: Record<string, unknown>) => { write(`[flowport] ${READABLE_PREFIX[name]}${message}${meta ? ' ' + toJson(meta) : ''}`) }
  }
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') }
}

/** The entry's own fields first, never overwritten by a field of the same name. */
function jsonLine (head: { level: number, time: number, msg: string }, meta: Record<string, unknown> | undefined): string {
  if (meta === undefined) return JSON.stringify(head)
  const line: Record<string, unknown> = { ...head }
  for (const key of Object.keys(meta)) if (!Object.hasOwn(head, key)) line[key] = meta[key]
  return toJson(line, head)
}

/**
 * An error as its name and message, a bigint as its digits (JSON.stringify would write `{}` for
 * the one and throw on the other); symbol keys are left out, as JSON.stringify does. Fields JSON
 * cannot hold (a cycle) cost the fields and never the line: a log call that throws would break
 * the code that logs.
 */
function toJson (value: Record<string, unknown>, withoutFields: Record<string, unknown> = {}): string {
  try {
    return JSON.stringify(value, (_key, field: unknown) => field instanceof Error ? `${field.name}: ${field.message}` : typeof field === 'bigint' ? field.toString() : field)
  } catch (err) {
    return JSON.stringify({ ...withoutFields, fieldsDropped: (err as Error).message })
  }
}

/** Default: readable lines, info and above. */
export const consoleLogger: Logger = createLogger()
