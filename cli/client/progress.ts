/**
 * Live progress of a run from its history stream: each step (activity `workflow#step`) as it is
 * scheduled and as it ends, retries with their attempt number and last error, elapsed time since
 * the run started (from the engine's event times). On a terminal with symbols and colour, otherwise
 * plain lines. The engine records a retried step's attempts when the step ends (its Started event
 * carries the attempt number and the previous attempt's failure), so retries show up then.
 */
import type { FlowportClient } from '@flowport/client'
import { foldSteps, isLocalActivityMarker, localStepMarkerOf, stepIdOf, type StepHistoryEvent, type Steps } from '@flowport/core/steps'
import { paint, type Style } from './output.js'

export type FollowEvent = ReturnType<FlowportClient['follow']> extends AsyncIterable<infer E> ? E : never
type HistoryEvent = Extract<FollowEvent, { event: 'history' }>['data'][number]
type Attributes = Record<string, unknown> & {
  failure?: { message?: string, cause?: { message?: string } }
  workflowType?: { name?: string }
}

const attributesOf = (event: HistoryEvent): Attributes => {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes'))
  return (key ? (event as Record<string, unknown>)[key] : {}) as Attributes
}

export interface ProgressOptions {
  /** Symbols and colour (a terminal) or plain lines. */
  terminal: boolean
  color: boolean
  write: (line: string) => void
}

export class ProgressRenderer {
  private startTime: number | undefined
  private steps: Steps = { steps: new Map(), cancelRequested: false }
  private readonly seenRuns = new Set<string>()

  constructor (private readonly options: ProgressOptions) {}

  private line (symbol: string, style: Style, text: string, time?: string) {
    const { terminal, color } = this.options
    const at = time !== undefined && this.startTime !== undefined ? ((Date.parse(time) - this.startTime) / 1000).toFixed(1) : undefined
    const elapsed = at === undefined ? '' : terminal ? paint('dim', `${at.padStart(6)}s `, color) : `[${at}s] `
    this.options.write(terminal ? `${elapsed}${paint(style, symbol, color)} ${text}` : `${elapsed}${text}`)
  }

  render (event: FollowEvent): void {
    if (event.event === 'workflow') {
      const { workflowId, runId, startTime } = event.data
      if (startTime) this.startTime = Date.parse(startTime)
      // Every (re)connection announces the run; say it once per run.
      if (!this.seenRuns.has(runId)) {
        this.seenRuns.add(runId)
        this.line('●', 'cyan', `following workflow ${workflowId} (run ${runId})`)
      }
    } else if (event.event === 'history') {
      for (const e of event.data) this.renderHistory(e)
    } else if (event.event === 'done') {
      const reason = event.data.reason.replace('WORKFLOW_EXECUTION_', '').toLowerCase()
      const ok = reason === 'completed' || reason === 'continued_as_new'
      this.line(ok ? '✓' : '✗', ok ? 'green' : 'red', `workflow ${reason}${event.data.newRunId ? ` (new run ${event.data.newRunId})` : ''}`)
    } else if (event.event === 'server_error') {
      this.line('!', 'yellow', `stream error ${event.data.error}: ${event.data.message} (reconnecting)`)
    }
  }

  private renderHistory (e: HistoryEvent) {
    const a = attributesOf(e)
    // The step the event belongs to, as the history so far tells it (core/src/steps.ts).
    const event = e as StepHistoryEvent
    this.steps = foldSteps(this.steps, [event])
    const id = stepIdOf(event)
    const step = id === undefined ? undefined : this.steps.steps.get(id)
    const attempt = step?.attempt ?? 1
    const type = e.eventType.replace('EVENT_TYPE_', '')
    switch (type) {
      case 'WORKFLOW_EXECUTION_STARTED':
        this.startTime ??= Date.parse(e.eventTime)
        this.line('▸', 'cyan', `workflow ${a.workflowType?.name ?? ''} started`, e.eventTime)
        break
      case 'ACTIVITY_TASK_SCHEDULED':
        // Scheduled, not started: the engine writes a step's started event only with its outcome.
        this.line('▸', 'cyan', `step ${step?.name ?? '?'} scheduled`, e.eventTime)
        break
      case 'ACTIVITY_TASK_STARTED':
        if (step && attempt > 1) {
          this.line('↻', 'yellow', `step ${step.name} attempt ${attempt} (attempt ${attempt - 1} failed: ${step.lastFailure ?? 'unknown error'})`, e.eventTime)
        }
        break
      case 'ACTIVITY_TASK_COMPLETED':
        this.line('✓', 'green', `step ${step?.name ?? '?'} completed${attempt > 1 ? ` on attempt ${attempt}` : ''}`, e.eventTime)
        break
      case 'ACTIVITY_TASK_FAILED':
      case 'ACTIVITY_TASK_TIMED_OUT': {
        const message = a.failure?.cause?.message ?? a.failure?.message ?? 'unknown error'
        const how = type === 'ACTIVITY_TASK_FAILED' ? 'failed' : 'timed out'
        this.line('✗', 'red', `step ${step?.name ?? '?'} ${how} on attempt ${attempt}: ${message}`, e.eventTime)
        break
      }
      case 'MARKER_RECORDED': {
        // A local step (docs/performance.md) leaves one marker when it ends, nothing before; its
        // data is decoded only when the stream includes payloads. A decoded marker the fold skips
        // is an attempt the SDK retries after a backoff: its step has not ended.
        const marker = event.markerRecordedEventAttributes
        if (!isLocalActivityMarker(marker?.markerName) || (step === undefined && localStepMarkerOf(marker) !== null)) break
        const name = step === undefined ? 'a local step' : `step ${step.name} (local)`
        const on = attempt > 1 ? ` on attempt ${attempt}` : ''
        if (a.failure) this.line('✗', 'red', `${name} failed${on}: ${a.failure.cause?.message ?? a.failure.message ?? 'unknown error'}`, e.eventTime)
        else this.line('✓', 'green', `${name} completed${on}`, e.eventTime)
        break
      }
      case 'START_CHILD_WORKFLOW_EXECUTION_INITIATED':
        this.line('▸', 'cyan', `child workflow ${a.workflowType?.name ?? ''} started`, e.eventTime)
        break
      case 'WORKFLOW_EXECUTION_SIGNALED':
        this.line('•', 'dim', `signal ${String(a.signalName ?? '')} received`, e.eventTime)
        break
      case 'WORKFLOW_EXECUTION_CANCEL_REQUESTED':
        this.line('•', 'yellow', 'stop requested', e.eventTime)
        break
    }
  }
}
