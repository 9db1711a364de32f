/**
 * Every cron string, calendar field, duration and time zone is checked here: a 400 naming the field,
 * where the engine would answer INVALID_ARGUMENT or, worse, store a spec that never fires.
 */
import type { ScheduleOverlapPolicy, ScheduleSpec } from '@temporalio/client'
import { validationError, type Issue } from '../../../lib/api-error.js'
import { durationMs } from '@flowport/core/duration'
import { MIN_INTERVAL_MS, type OverlapPolicy, type SchedulePolicies, type ScheduleSpecBody } from '../../../schemas/schedules.js'

interface Field { name: string, min: number, max: number, names?: string[] }

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC']
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']
const SECOND: Field = { name: 'second', min: 0, max: 59 }
const MINUTE: Field = { name: 'minute', min: 0, max: 59 }
const HOUR: Field = { name: 'hour', min: 0, max: 23 }
const DAY_OF_MONTH: Field = { name: 'dayOfMonth', min: 1, max: 31 }
// Month names count from 1, day names from 0 (Sunday; 7 is Sunday too).
const MONTH: Field = { name: 'month', min: 1, max: 12, names: ['', ...MONTHS] }
const DAY_OF_WEEK: Field = { name: 'dayOfWeek', min: 0, max: 7, names: DAYS }
const YEAR: Field = { name: 'year', min: 1970, max: 9999 }

const FIVE = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK]
const SIX = [...FIVE, YEAR]
const SEVEN = [SECOND, ...SIX]
const PREDEFINED = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'])

function valueOf (text: string, field: Field): number | undefined {
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1
  const value = /^\d+$/.test(text) ? Number(text) : index > 0 || (index === 0 && field === DAY_OF_WEEK) ? index : undefined
  return value !== undefined && value >= field.min && value <= field.max ? value : undefined
}

/** Why one field in cron syntax (`*`, `5`, `1-5`, `*\/15`, `MON-FRI`, lists of these) is invalid, or undefined. */
export function fieldProblem (text: string, field: Field): string | undefined {
  for (const item of text.split(',')) {
    const m = /^(\*|[A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?(?:\/(\d+))?$/.exec(item)
    if (!m) return `${field.name} "${item}" is not a value, range or step`
    const [, first, last, step] = m
    if (step !== undefined && Number(step) < 1) return `${field.name} step must be at least 1`
    if (first === '*') {
      if (last !== undefined) return `${field.name} "${item}": * takes no range`
      continue
    }
    const from = valueOf(first, field)
    if (from === undefined) return `${field.name} "${first}" is outside ${field.min}–${field.max}${field.names ? ' and not a name' : ''}`
    if (last === undefined) continue
    const to = valueOf(last, field)
    if (to === undefined) return `${field.name} "${last}" is outside ${field.min}–${field.max}${field.names ? ' and not a name' : ''}`
    if (to < from) return `${field.name} range "${item}" ends before it starts`
  }
  return undefined
}

export function cronProblem (cron: string): string | undefined {
  const text = cron.trim()
  if (/^(CRON_)?TZ=/i.test(text)) return 'carries a time zone: set spec.timezone instead'
  if (text.startsWith('@')) {
    if (PREDEFINED.has(text.toLowerCase())) return undefined
    const every = /^@every\s+(\d+)(ms|s|m|h)$/i.exec(text)
    if (!every) return `"${text}" is not one of ${[...PREDEFINED].join(', ')} or "@every <n><ms|s|m|h>"`
    return durationMs(`${every[1]}${every[2].toLowerCase()}`) < MIN_INTERVAL_MS ? '@every must be at least 1s' : undefined
  }
  const fields = text.split(/\s+/)
  const layout = fields.length === 5 ? FIVE : fields.length === 6 ? SIX : fields.length === 7 ? SEVEN : undefined
  if (!layout) return `has ${fields.length} fields; expected 5 (minute hour day-of-month month day-of-week), 6 (+ year) or 7 (second first, year last)`
  for (let i = 0; i < fields.length; i++) {
    const problem = fieldProblem(fields[i], layout[i])
    if (problem) return problem
  }
  return undefined
}

/** Whether the runtime knows the IANA zone (the engine ships the same tz database names). */
export function isTimeZone (zone: string): boolean {
  try {
    // eslint-disable-next-line no-new
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

type Calendar = NonNullable<ScheduleSpecBody['calendar']>[number]

export function compileSpec (spec: ScheduleSpecBody, base = '/spec'): ScheduleSpec {
  const issues: Issue[] = []
  const issue = (path: string, message: string) => { issues.push({ path: `${base}${path}`, in: 'body', message }) }
  const cron = spec.cron ?? []
  const every = spec.every ?? []
  const calendar = spec.calendar ?? []
  if (cron.length + every.length + calendar.length === 0) issue('', 'needs at least one cron, every or calendar entry')
  cron.forEach((c, i) => {
    const problem = cronProblem(c)
    if (problem) issue(`/cron/${i}`, problem)
  })
  const intervals = every.map((e, i) => {
    const interval = durationMs(e.interval)
    const offset = e.offset === undefined ? 0 : durationMs(e.offset)
    if (offset >= interval) issue(`/every/${i}/offset`, 'must be less than the interval')
    return { every: interval, offset }
  })
  calendar.forEach((c, i) => {
    for (const field of SEVEN) {
      const value = c[field.name as keyof Calendar]
      const problem = value === undefined ? undefined : fieldProblem(value, field)
      if (problem) issue(`/calendar/${i}/${field.name}`, problem)
    }
  })
  if (spec.timezone !== undefined && !isTimeZone(spec.timezone)) issue('/timezone', `${spec.timezone} is not an IANA time zone`)
  const startAt = spec.startAt === undefined ? undefined : new Date(spec.startAt)
  const endAt = spec.endAt === undefined ? undefined : new Date(spec.endAt)
  if (startAt && Number.isNaN(startAt.getTime())) issue('/startAt', 'is not a time')
  if (endAt && Number.isNaN(endAt.getTime())) issue('/endAt', 'is not a time')
  if (startAt && endAt && endAt <= startAt) issue('/endAt', 'must be after startAt')
  if (issues.length) throw validationError(issues)
  return {
    // A calendar entry as the 7-field cron string the engine parses (second minute hour dom month dow year).
    cronExpressions: [...cron.map((c) => c.trim()), ...calendar.map((c) =>
      [c.second ?? '0', c.minute ?? '0', c.hour ?? '0', c.dayOfMonth ?? '*', c.month ?? '*', c.dayOfWeek ?? '*', c.year ?? '*'].join(' '))],
    intervals,
    timezone: spec.timezone,
    startAt,
    endAt,
    jitter: spec.jitter === undefined ? undefined : durationMs(spec.jitter)
  }
}

const TO_ENGINE: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  bufferOne: 'BUFFER_ONE',
  bufferAll: 'BUFFER_ALL',
  cancelOther: 'CANCEL_OTHER',
  terminateOther: 'TERMINATE_OTHER',
  allowAll: 'ALLOW_ALL'
}

export const overlapToEngine = (overlap: OverlapPolicy | undefined): ScheduleOverlapPolicy | undefined =>
  overlap === undefined ? undefined : TO_ENGINE[overlap]

export function overlapFromEngine (overlap: ScheduleOverlapPolicy | undefined): OverlapPolicy {
  const found = Object.entries(TO_ENGINE).find(([, engine]) => engine === overlap)
  return (found?.[0] ?? 'skip') as OverlapPolicy
}

export interface EnginePolicies { overlap?: ScheduleOverlapPolicy, catchupWindow?: number, pauseOnFailure?: boolean }

export function compilePolicies (policies: SchedulePolicies | undefined): EnginePolicies {
  if (!policies) return {}
  // At least 10 s, as its schema states (schemas/schedules.ts).
  const catchupWindow = policies.catchupWindow === undefined ? undefined : durationMs(policies.catchupWindow)
  return { overlap: overlapToEngine(policies.overlap), catchupWindow, pauseOnFailure: policies.pauseOnFailure }
}
