/**
 * The dev stack's API log: one readable line per entry (pino-pretty). Production (`flowport api`)
 * keeps pino's JSON lines, which log collectors parse.
 */
import pretty from 'pino-pretty'

export function devLogStream (): NodeJS.WritableStream {
  return pretty({
    colorize: process.stdout.isTTY,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    messageFormat: '[api] {msg}',
    sync: true
  })
}
