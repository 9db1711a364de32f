/**
 * Durations: how the API's wire writes them (`durationMs`), and how they are printed, one rule per
 * form: for people (the inspector's timeline and run page), and as a number of seconds or
 * milliseconds with a unit (log lines, command output, benchmark tables). Free of Node built-ins:
 * the browser imports it.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/**
 * Milliseconds of a duration as the wire writes it: milliseconds, or a string such as `90s` or
 * `2h` (schedule specs, delayed starts, `--since`). The API's schemas check the form first; a
 * string of another form is a RangeError.
 */
export function durationMs (value: number | string): number {
  if (typeof value === 'number') return value
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value)
  if (!m) throw new RangeError(`${value} is not a duration`)
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
}

/** `850 ms`, `12.3 s`, `4 min 5 s`. */
export function formatDuration (ms: number): string {
  if (ms < 1000) return `${ms} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

/** `12 s` (`digits` decimals). */
export const formatSeconds = (ms: number, digits = 0) => `${(ms / 1000).toFixed(digits)} s`

/** `850 ms` (`digits` decimals). */
export const formatMs = (ms: number, digits = 0) => `${ms.toFixed(digits)} ms`
