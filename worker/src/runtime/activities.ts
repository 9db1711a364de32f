/**
 * Steps and evaluators as Temporal activities named `<workflow>#<name>`: input and output are
 * checked against their schemas inside the activity, and errors become failures that keep the
 * error's `name` (FatalError and its subclasses are not retried).
 */
import { Context } from '@temporalio/activity'
import { failureFrom } from '../common/failure.js'
import { invokeChecked } from '../common/invoke.js'
import { resolveStepOptions } from '../common/step-options.js'
import { EvaluationSchema, type StepContext } from '../common/step.js'
import type { LocalStepResult } from '@flowport/core/local-step'
import { activityTypeOf, parseActivityType } from '@flowport/core/steps'
import type { Manifest } from '../workflow/manifest.js'
import type { Component } from './discovery/load.js'
import type { Registry } from './registry.js'

type Activity = (input: unknown) => Promise<unknown>

function stepContext (activityType: string): StepContext {
  const ctx = Context.current()
  const { info } = ctx
  return {
    attempt: info.attempt,
    workflowName: parseActivityType(activityType).workflow,
    workflowId: info.workflowExecution?.workflowId ?? '',
    runId: info.workflowExecution?.runId ?? '',
    activityType,
    signal: ctx.cancellationSignal,
    heartbeat: (details) => { ctx.heartbeat(details) }
  }
}

/** `run` replaces the component's own (a workflow test's mock), validated against the same schemas. */
export function toActivity (component: Component, activityType: string, run: Component['run'] = component.run): Activity {
  const outputSchema = component.kind === 'flowport.step' ? component.outputSchema : EvaluationSchema
  return async (input) => {
    const startTime = new Date().toISOString()
    let output: unknown
    try {
      // A ValidationError is a FatalError: its failure keeps the name and is not retried.
      output = await invokeChecked({ kind: component.kind, inputSchema: component.inputSchema, run }, outputSchema, input, stepContext(activityType), activityType)
    } catch (err) {
      throw failureFrom(err)
    }
    if (!Context.current().info.isLocal) return output
    // The engine keeps no scheduled event for a local activity: its marker is the trace's only record.
    return { input, output, startTime, endTime: new Date().toISOString() } satisfies LocalStepResult
  }
}

/** A replacement `run` for an activity type, or undefined to keep the component's (workflow tests). */
export type RunOverride = (activityType: string, component: Component) => Component['run'] | undefined

/** Every workflow gets the shared components plus its own (its own win on a name clash). */
export function buildActivities (registry: Registry, override?: RunOverride): { activities: Record<string, Activity>, manifest: Manifest } {
  const activities: Record<string, Activity> = {}
  const manifest: Manifest = { workflows: {}, activities: {} }
  for (const workflow of registry.workflows) {
    const { name, aliases } = workflow.meta
    for (const type of [name, ...aliases]) manifest.workflows[type] = name
    const components = new Map([...registry.shared, ...workflow.own])
    for (const [componentName, { definition }] of components) {
      const activityType = activityTypeOf(name, componentName)
      activities[activityType] = toActivity(definition, activityType, override?.(activityType, definition))
      manifest.activities[activityType] = resolveStepOptions(definition.options)
    }
  }
  return { activities, manifest }
}
