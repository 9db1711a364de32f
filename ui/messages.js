// What a run's history says besides its steps (those are core's foldSteps): durable timers, the
// signals it received and the updates it accepted and completed, and when each step's attempt
// started and ended (for its duration). Folded as the SSE stream delivers events, like the steps;
// events are the engine's canonical JSON (RFC 3339 times, durations like "10s"). Queries and
// rejected updates never reach a history: the page adds the ones it sent itself (ui/handlers.js).
import { stepIdOf } from './vendor/core.mjs'

/** `"10s"`, `"1.5s"` → milliseconds; null when it is not a protobuf duration. */
const durationMs = (text) => {
  const m = typeof text === 'string' ? text.match(/^(\d+(?:\.\d+)?)s$/) : null
  return m ? Math.round(Number(m[1]) * 1000) : null
}

export const emptyMessages = () => ({ notes: new Map(), times: new Map(), updates: new Map() })

/**
 * Applies `events` to `state` (a new state is returned): `notes` by the id of the event that began
 * each (a timer, a signal, an update), `times` of the events that start or end a step's attempt.
 */
export function foldMessages (state, events) {
  const notes = new Map(state.notes)
  const times = new Map(state.times)
  const updates = new Map(state.updates)
  const set = (id, change) => { const note = notes.get(id); if (note) notes.set(id, { ...note, ...change }) }
  for (const e of events) {
    const at = e.eventTime
    if (stepIdOf(e, { localStep: () => null }) !== undefined) times.set(String(e.eventId), at)
    const timer = e.timerStartedEventAttributes
    const signal = e.workflowExecutionSignaledEventAttributes
    const accepted = e.workflowExecutionUpdateAcceptedEventAttributes
    const completed = e.workflowExecutionUpdateCompletedEventAttributes
    if (timer) {
      const ms = durationMs(timer.startToFireTimeout)
      notes.set(String(e.eventId), { id: String(e.eventId), kind: 'timer', name: 'timer', status: 'sleeping', time: at, until: ms === null ? null : new Date(Date.parse(at) + ms).toISOString(), end: null })
    } else if (e.timerFiredEventAttributes) {
      set(String(e.timerFiredEventAttributes.startedEventId), { status: 'fired', end: at })
    } else if (e.timerCanceledEventAttributes) {
      set(String(e.timerCanceledEventAttributes.startedEventId), { status: 'canceled', end: at })
    } else if (signal) {
      notes.set(String(e.eventId), { id: String(e.eventId), kind: 'signal', name: signal.signalName ?? '?', status: 'received', time: at, end: at })
    } else if (accepted) {
      const id = String(e.eventId)
      const updateId = accepted.acceptedRequest?.meta?.updateId
      if (updateId) updates.set(updateId, id)
      notes.set(id, { id, kind: 'update', name: accepted.acceptedRequest?.input?.name ?? '?', status: 'accepted', time: at, end: null })
    } else if (completed) {
      const id = updates.get(completed.meta?.updateId)
      const failure = completed.outcome?.failure
      if (id) set(id, { status: failure ? 'failed' : 'completed', end: at, error: failure?.message ?? null })
    }
  }
  return { notes, times, updates }
}
