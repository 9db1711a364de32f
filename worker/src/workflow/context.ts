/**
 * The `ctx` of a run: typed handler registration with schema checks at the boundary, and
 * continue-as-new. Handlers can only be registered for names declared in the definition.
 */
import type { TSchema } from '@sinclair/typebox'
import { continueAsNew, defineQuery, defineSignal, defineUpdate, log, setHandler, workflowInfo } from '@temporalio/workflow'
import { ValidationError } from '../common/errors.js'
import { explain } from '../common/validate.js'
import { validationFailure } from '../common/failure.js'
import { toFailure } from './failures.js'
import type { Queries, Signals, Updates, WorkflowContext, WorkflowMeta } from './types.js'

type Handler = (payload: unknown) => unknown
type Kind = 'signal' | 'query' | 'update'

function declaration<D extends { payloadSchema?: TSchema }> (meta: WorkflowMeta, kind: Kind, declared: Record<string, D>, name: string): D {
  const found = Object.hasOwn(declared, name) ? declared[name] : undefined
  if (found === undefined) throw new Error(`Workflow ${meta.name} has no ${kind} "${name}" declared in its definition`)
  return found
}

export function createContext (meta: WorkflowMeta, input: unknown): WorkflowContext<TSchema, Signals, Queries, Updates> {
  return {
    input,
    get info () {
      const info = workflowInfo()
      return { name: meta.name, workflowId: info.workflowId, runId: info.runId, workflowType: info.workflowType }
    },

    onSignal (name, handler) {
      const { payloadSchema } = declaration(meta, 'signal', meta.signals, name)
      setHandler(defineSignal<[unknown]>(name), async (payload) => {
        const problem = explain(payloadSchema, payload)
        // A signal cannot be rejected: a bad one is dropped (and logged) rather than failing the run.
        if (problem !== undefined) return log.warn(`Ignored signal ${name}: invalid payload: ${problem}`)
        try {
          await (handler as Handler)(payloadSchema === undefined ? undefined : payload)
        } catch (err) {
          throw toFailure(err)
        }
      })
    },

    onQuery (name, handler) {
      const { payloadSchema, resultSchema } = declaration(meta, 'query', meta.queries, name)
      setHandler(defineQuery<unknown, [unknown]>(name), (payload) => {
        const problem = explain(payloadSchema, payload)
        if (problem !== undefined) throw new ValidationError(`Invalid payload of query ${name}: ${problem}`)
        const result = (handler as Handler)(payloadSchema === undefined ? undefined : payload)
        const resultProblem = explain(resultSchema, result)
        if (resultProblem !== undefined) throw new ValidationError(`Invalid result of query ${name}: ${resultProblem}`)
        return result
      })
    },

    onUpdate (name, handler, options) {
      const { payloadSchema, resultSchema } = declaration(meta, 'update', meta.updates, name)
      const check = (payload: unknown): void => {
        const problem = explain(payloadSchema, payload)
        if (problem !== undefined) throw validationFailure(`Invalid payload of update ${name}: ${problem}`)
      }
      setHandler(defineUpdate<unknown, [unknown]>(name), async (payload) => {
        // Validators do not run on replay or when a caller skips them; check again here.
        check(payload)
        let result: unknown
        try {
          result = await (handler as Handler)(payloadSchema === undefined ? undefined : payload)
        } catch (err) {
          // An ApplicationFailure fails this update only; any other error would fail the workflow task.
          throw toFailure(err)
        }
        const problem = explain(resultSchema, result)
        if (problem !== undefined) throw validationFailure(`Invalid result of update ${name}: ${problem}`)
        return result
      }, {
        validator: (payload) => {
          check(payload)
          options?.validator?.((payloadSchema === undefined ? undefined : payload) as never)
        }
      })
    },

    async continueAsNew (next) {
      const problem = explain(meta.inputSchema, next)
      if (problem !== undefined) throw new ValidationError(`Invalid input to continue workflow ${meta.name} as new: ${problem}`)
      return await continueAsNew(next)
    }
  }
}
