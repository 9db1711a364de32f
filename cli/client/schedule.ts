/**
 * `flowport schedule create | list | show | pause | unpause | trigger | backfill | delete`:
 * the /schedules endpoints (docs/schedules.md), in the style of the other client commands.
 */
import { InvalidArgumentError, type Command } from 'commander'
import type { CreateScheduleBody, OverlapPolicy, Schedule, ScheduleSummary } from '@flowport/client'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { positiveInteger, readInput } from './input.js'
import { info, printTable } from './output.js'

const OVERLAPS = ['skip', 'bufferOne', 'bufferAll', 'cancelOther', 'terminateOther', 'allowAll']

const repeat = (value: string, previous: string[] = []) => [...previous, value]

function overlap (value: string): OverlapPolicy {
  // Commander reports it as a usage error (exit 2), like an unknown option.
  if (!OVERLAPS.includes(value)) throw new InvalidArgumentError(`must be one of ${OVERLAPS.join(', ')}`)
  return value as OverlapPolicy
}

/** A duration option as the API takes it: `"15m"`-style, or milliseconds when it is a bare number. */
const duration = (value: string): string | number => /^\d+$/.test(value) ? Number(value) : value

type CreateOptions = CommonOptions & {
  id?: string
  cron?: string[]
  every?: string[]
  spec?: string
  timezone?: string
  overlap?: OverlapPolicy
  catchupWindow?: string
  pauseOnFailure?: boolean
  paused?: boolean
  note?: string
}

function printSchedule (s: Schedule): void {
  const rows: string[][] = [
    ['schedule', s.scheduleId],
    ['workflow', `${s.workflowName} (catalog ${s.catalog})`],
    ['input', JSON.stringify(s.input)],
    ['spec', JSON.stringify(s.spec)],
    ['overlap', s.policies.overlap],
    ['state', s.state.paused ? `paused${s.state.note ? ` (${s.state.note})` : ''}` : 'active'],
    ['next', s.nextActionTimes.join(', ') || '-'],
    ['runs started', String(s.actionsTaken)]
  ]
  printTable(['', ''], rows)
  if (s.recentActions.length) printTable(['due', 'workflow id', 'status'], s.recentActions.map((a) => [a.scheduledAt, a.workflowId, a.status]))
  for (const warning of s.warnings) info(`warning: ${warning}`)
}

export function registerSchedule (program: Command): void {
  const schedule = program.command('schedule').description('create, list, show, pause, unpause, trigger, backfill and delete schedules')

  clientCommand(schedule, 'create <workflow> <input>', 'create a schedule of a workflow (input: JSON, @file.json or - for stdin)')
    .option('--id <scheduleId>', 'schedule id (default: generated)')
    .option('--cron <expression>', 'a cron expression, e.g. "0 9 * * MON-FRI" (repeatable)', repeat)
    .option('--every <duration>', 'an interval, e.g. 10s, 15m, 1h (repeatable)', repeat)
    .option('--spec <json>', 'the whole spec as JSON, @file.json or - (instead of --cron/--every)')
    .option('--timezone <zone>', 'IANA time zone of the cron expressions (default UTC)')
    .option('--catalog <catalog>', 'catalog (default: the API\'s SERVICE_CATALOG_ID)')
    .option('--overlap <policy>', `when a run is still open: ${OVERLAPS.join(', ')} (default skip)`, overlap)
    .option('--catchup-window <duration>', 'how late a missed run may still start (at least 10s)')
    .option('--pause-on-failure', 'pause the schedule when a run fails')
    .option('--paused', 'create it paused')
    .option('--note <text>', 'a note kept with its state')
    .action(action(async (workflow: string, inputArg: string, options: CreateOptions) => {
      const input = await readInput(inputArg)
      const spec: CreateScheduleBody['spec'] = options.spec !== undefined
        ? await readInput(options.spec, 'spec') as CreateScheduleBody['spec']
        : {
            ...(options.cron ? { cron: options.cron } : {}),
            ...(options.every ? { every: options.every.map((e) => ({ interval: duration(e) })) } : {})
          }
      if (options.timezone !== undefined) spec.timezone = options.timezone
      const policies = Object.fromEntries(Object.entries({
        overlap: options.overlap,
        catchupWindow: options.catchupWindow === undefined ? undefined : duration(options.catchupWindow),
        pauseOnFailure: options.pauseOnFailure
      }).filter((e) => e[1] !== undefined))
      const body: CreateScheduleBody = {
        workflowName: workflow,
        input,
        spec,
        ...Object.fromEntries(Object.entries({ scheduleId: options.id, catalog: options.catalog, paused: options.paused, note: options.note }).filter((e) => e[1] !== undefined)),
        ...(Object.keys(policies).length ? { policies } : {})
      }
      const scheduleId = await clientOf(options).createSchedule(body)
      return answer(options, { scheduleId }, () => { process.stdout.write(`${scheduleId}\n`) })
    }))

  clientCommand(schedule, 'list', 'list schedules')
    .option('--workflow <name>', 'only schedules of this workflow')
    .option('--catalog <catalog>', 'only schedules of this catalog')
    .option('--limit <n>', 'at most this many', positiveInteger('--limit'), 50)
    .action(action(async (options: CommonOptions & { workflow?: string, limit: number }) => {
      const found: ScheduleSummary[] = []
      for await (const s of clientOf(options).schedules({ workflowName: options.workflow, catalog: options.catalog, pageSize: Math.min(options.limit, 100) })) {
        found.push(s)
        if (found.length >= options.limit) break
      }
      return answer(options, found, () => { printTable(['schedule', 'workflow', 'catalog', 'state', 'next'], found.map((s) => [s.scheduleId, s.workflowName, s.catalog, s.state.paused ? 'paused' : 'active', s.nextActionTimes[0] ?? '-'])) })
    }))

  clientCommand(schedule, 'show <scheduleId>', 'show a schedule: spec, state, next times, recent runs, warnings')
    .action(action(async (scheduleId: string, options: CommonOptions) => {
      const { schedule: s, etag } = await clientOf(options).getSchedule(scheduleId)
      return answer(options, { ...s, etag }, () => { printSchedule(s) })
    }))

  for (const verb of ['pause', 'unpause'] as const) {
    clientCommand(schedule, `${verb} <scheduleId>`, verb === 'pause' ? 'pause a schedule: no run starts until it is unpaused' : 'unpause a schedule')
      .option('--note <text>', 'why; kept as the schedule\'s note')
      .action(action(async (scheduleId: string, options: CommonOptions & { note?: string }) => {
        const client = clientOf(options)
        await (verb === 'pause' ? client.pauseSchedule(scheduleId, options.note) : client.unpauseSchedule(scheduleId, options.note))
        return answer(options, { scheduleId, paused: verb === 'pause' }, `Schedule ${scheduleId} ${verb}d.`)
      }))
  }

  clientCommand(schedule, 'trigger <scheduleId>', 'start one run now')
    .option('--overlap <policy>', 'overlap policy for this run (default: the schedule\'s)', overlap)
    .action(action(async (scheduleId: string, options: CommonOptions & { overlap?: OverlapPolicy }) => {
      await clientOf(options).triggerSchedule(scheduleId, { overlap: options.overlap })
      return answer(options, { scheduleId, triggered: true }, `Schedule ${scheduleId} triggered.`)
    }))

  clientCommand(schedule, 'backfill <scheduleId>', 'start now the runs that were due in a time range (both ends inclusive)')
    .requiredOption('--from <time>', 'start of the range (ISO 8601)')
    .requiredOption('--to <time>', 'end of the range (ISO 8601)')
    .option('--overlap <policy>', 'overlap policy for these runs (default: the schedule\'s)', overlap)
    .action(action(async (scheduleId: string, options: CommonOptions & { from: string, to: string, overlap?: OverlapPolicy }) => {
      await clientOf(options).backfillSchedule(scheduleId, options.from, options.to, { overlap: options.overlap })
      return answer(options, { scheduleId, backfilled: { startAt: options.from, endAt: options.to } }, `Schedule ${scheduleId}: runs due from ${options.from} to ${options.to} started.`)
    }))

  clientCommand(schedule, 'delete <scheduleId>', 'delete a schedule (the runs it started are left alone)')
    .action(action(async (scheduleId: string, options: CommonOptions) => {
      await clientOf(options).deleteSchedule(scheduleId)
      return answer(options, { scheduleId, deleted: true }, `Schedule ${scheduleId} deleted.`)
    }))
}
