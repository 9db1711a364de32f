/**
 * How a duration is printed, one rule per form: for people (the inspector's timeline and run
 * page), and as a number of seconds or milliseconds with a unit (log lines, command output,
 * benchmark tables). Free of Node built-ins: the browser imports it.
 */

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
