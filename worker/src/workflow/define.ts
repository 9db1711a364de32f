/**
 * `defineWorkflow`: turns a spec into a callable definition. The same module is imported by the
 * worker in plain Node (to read names and schemas) and bundled into the sandbox (to run).
 */
import type { Static, TSchema } from '@sinclair/typebox'
import { executeChild, inWorkflowContext, uuid4, workflowInfo } from '@temporalio/workflow'
import type { ChildOptions, Queries, Signals, Updates, WorkflowDefinition, WorkflowMeta, WorkflowSpec } from './types.js'

type None = {}

export function defineWorkflow<I extends TSchema, O extends TSchema, S extends Signals = None, Q extends Queries = None, U extends Updates = None> (
  spec: WorkflowSpec<I, O, S, Q, U>
): WorkflowDefinition<I, O, S, Q, U> {
  const meta: WorkflowMeta<I, O, S, Q, U> = Object.freeze({
    ...spec,
    kind: 'flowport.workflow',
    aliases: [...(spec.aliases ?? [])],
    signals: spec.signals ?? ({} as S),
    queries: spec.queries ?? ({} as Q),
    updates: spec.updates ?? ({} as U),
    versioning: spec.versioning ?? 'pinned',
    cleanup: spec.cleanup
  })

  async function runAsChild (input: Static<I>, options: ChildOptions = {}): Promise<Static<O>> {
    if (!inWorkflowContext()) {
      throw new Error(`Workflow ${meta.name} can only be called from another workflow; start it with a Temporal client or the Flowport API`)
    }
    const parent = workflowInfo()
    return await executeChild(meta.name, {
      args: [input],
      taskQueue: parent.taskQueue,
      workflowId: options.workflowId ?? `${parent.workflowId}-${meta.name}-${uuid4()}`,
      parentClosePolicy: options.parentClosePolicy
    }) as Static<O>
  }

  Object.defineProperty(runAsChild, 'name', { value: meta.name })
  return Object.assign(runAsChild, { definition: meta })
}

export function isWorkflow (value: unknown): value is WorkflowDefinition {
  return typeof value === 'function' &&
    (value as { definition?: { kind?: unknown } }).definition?.kind === 'flowport.workflow'
}
