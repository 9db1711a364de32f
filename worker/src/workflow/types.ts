/**
 * Types of workflow definitions. Signals, queries and updates are declared with schemas in the
 * definition (so the catalog can publish them) and given handlers inside `run` (so handlers can
 * close over the run's state).
 */
import type { Static, TSchema } from '@sinclair/typebox'
import type { VersioningMode } from '@flowport/core/contract'

export interface SignalDeclaration {
  description?: string
  /** Omit for a signal without payload. */
  payloadSchema?: TSchema
}

export interface QueryDeclaration {
  description?: string
  payloadSchema?: TSchema
  resultSchema: TSchema
}

export interface UpdateDeclaration {
  description?: string
  payloadSchema?: TSchema
  /** Omit for an update that returns nothing. */
  resultSchema?: TSchema
}

export type Signals = Record<string, SignalDeclaration>
export type Queries = Record<string, QueryDeclaration>
export type Updates = Record<string, UpdateDeclaration>

export type PayloadOf<D> = D extends { payloadSchema: infer P extends TSchema } ? Static<P> : undefined
export type ResultOf<D> = D extends { resultSchema: infer R extends TSchema } ? Static<R> : void

export interface RunInfo {
  /** Canonical workflow name (never an alias). */
  readonly name: string
  readonly workflowId: string
  readonly runId: string
  /** Name the run was started with: the canonical name or one of its aliases. */
  readonly workflowType: string
}

export type { VersioningMode }

export interface UpdateOptions<P> {
  /** Runs before the update is accepted; throw to reject it (the message reaches the caller). */
  validator?: (payload: P) => void
}

export interface WorkflowContext<I extends TSchema, S extends Signals, Q extends Queries, U extends Updates> {
  /** The validated input of this run. */
  readonly input: Static<I>
  readonly info: RunInfo
  onSignal<K extends keyof S & string> (name: K, handler: (payload: PayloadOf<S[K]>) => void | Promise<void>): void
  /** Query handlers must be synchronous and must not change state (Temporal's rule). */
  onQuery<K extends keyof Q & string> (name: K, handler: (payload: PayloadOf<Q[K]>) => ResultOf<Q[K]>): void
  onUpdate<K extends keyof U & string> (
    name: K,
    handler: (payload: PayloadOf<U[K]>) => ResultOf<U[K]> | Promise<ResultOf<U[K]>>,
    options?: UpdateOptions<PayloadOf<U[K]>>
  ): void
  /** Ends this run and starts a new one with a fresh history; `return` its result. */
  continueAsNew (input: Static<I>): Promise<never>
}

export interface WorkflowSpec<I extends TSchema, O extends TSchema, S extends Signals, Q extends Queries, U extends Updates> {
  name: string
  description: string
  /** Extra names the workflow can be started with. */
  aliases?: string[]
  inputSchema: I
  outputSchema: O
  signals?: S
  queries?: Q
  updates?: U
  run: (input: Static<I>, ctx: WorkflowContext<I, S, Q, U>) => Promise<Static<O>> | Static<O>
  /**
   * Under worker versioning (docs/versioning.md): `pinned` (the default) keeps an
   * open run on the version that started it; `autoUpgrade` moves it to the current version, whose
   * code must replay its history (guard changes with `patched()`). No effect on an unversioned worker.
   */
  versioning?: VersioningMode
  /**
   * Graceful stop: runs when the run is cancelled, in a scope that cannot be cancelled, so it may
   * call steps. The run then ends `canceled`.
   */
  cleanup?: (ctx: WorkflowContext<I, S, Q, U>) => Promise<void> | void
}

/** The data the worker and the runtime read; `kind` tells definitions apart without `instanceof`. */
export interface WorkflowMeta<I extends TSchema = TSchema, O extends TSchema = TSchema, S extends Signals = Signals, Q extends Queries = Queries, U extends Updates = Updates>
  extends Required<Omit<WorkflowSpec<I, O, S, Q, U>, 'cleanup' | 'versioning'>> {
  readonly kind: 'flowport.workflow'
  readonly cleanup: WorkflowSpec<I, O, S, Q, U>['cleanup']
  /** Absent from definitions made by an older copy of this SDK (a package bundling its own): `pinned`. */
  readonly versioning?: VersioningMode
}

export interface ChildOptions {
  /** Default: `<parent workflow id>-<name>-<uuid>`. */
  workflowId?: string
  /** What happens to the child when the parent closes first. Default: TERMINATE. */
  parentClosePolicy?: 'TERMINATE' | 'ABANDON' | 'REQUEST_CANCEL'
}

/**
 * A workflow. Calling it from inside another workflow runs it as a child workflow on the same
 * task queue and resolves with its output.
 */
export interface WorkflowDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema, S extends Signals = Signals, Q extends Queries = Queries, U extends Updates = Updates> {
  (input: Static<I>, options?: ChildOptions): Promise<Static<O>>
  readonly definition: WorkflowMeta<I, O, S, Q, U>
}
