// The live step list, folded from the run's history events as the SSE stream delivers them:
// activities (steps, evaluators) and child workflows, with their state and attempt.
const ENDINGS = {
  EVENT_TYPE_ACTIVITY_TASK_COMPLETED: ['activityTaskCompletedEventAttributes', 'completed'],
  EVENT_TYPE_ACTIVITY_TASK_FAILED: ['activityTaskFailedEventAttributes', 'failed'],
  EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: ['activityTaskTimedOutEventAttributes', 'timed_out'],
  EVENT_TYPE_ACTIVITY_TASK_CANCELED: ['activityTaskCanceledEventAttributes', 'canceled'],
  EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: ['childWorkflowExecutionCompletedEventAttributes', 'completed'],
  EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED: ['childWorkflowExecutionFailedEventAttributes', 'failed'],
  EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED: ['childWorkflowExecutionCanceledEventAttributes', 'canceled'],
  EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT: ['childWorkflowExecutionTimedOutEventAttributes', 'timed_out'],
  EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED: ['childWorkflowExecutionTerminatedEventAttributes', 'terminated']
}

/** `workflow#step` → `step`. */
const stepName = (type) => type.slice(type.indexOf('#') + 1)

/** Applies a batch of events to `steps` (a Map by scheduling event id); returns a new Map. */
export function foldEvents (steps, events, cancelRequested) {
  const next = new Map(steps)
  let cancel = cancelRequested
  for (const event of events) {
    const type = event.eventType
    if (type === 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED') cancel = true
    if (type === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') {
      const a = event.activityTaskScheduledEventAttributes ?? {}
      next.set(event.eventId, { id: event.eventId, kind: 'step', name: stepName(a.activityType?.name ?? '?'), status: 'scheduled', attempt: null, cleanup: cancel, time: event.eventTime })
    } else if (type === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED') {
      const a = event.startChildWorkflowExecutionInitiatedEventAttributes ?? {}
      next.set(event.eventId, { id: event.eventId, kind: 'child', name: a.workflowType?.name ?? '?', status: 'scheduled', child: { workflowId: a.workflowId, runId: null }, cleanup: cancel, time: event.eventTime })
    } else if (type === 'EVENT_TYPE_ACTIVITY_TASK_STARTED') {
      const a = event.activityTaskStartedEventAttributes ?? {}
      const step = next.get(a.scheduledEventId)
      if (step) next.set(step.id, { ...step, status: 'running', attempt: a.attempt ?? step.attempt })
    } else if (type === 'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED') {
      const a = event.childWorkflowExecutionStartedEventAttributes ?? {}
      const step = next.get(a.initiatedEventId)
      if (step) next.set(step.id, { ...step, status: 'running', child: a.workflowExecution ?? step.child })
    } else if (ENDINGS[type]) {
      const [field, status] = ENDINGS[type]
      const a = event[field] ?? {}
      const step = next.get(a.scheduledEventId ?? a.initiatedEventId)
      if (step) next.set(step.id, { ...step, status, error: a.failure?.message ?? null })
    }
  }
  return { steps: next, cancelRequested: cancel }
}
