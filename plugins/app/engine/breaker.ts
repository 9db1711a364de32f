/**
 * Circuit breaker of the engine connection: once the engine is seen unreachable, engine calls are
 * refused at once (503 EngineUnavailableError) instead of each one retrying until its deadline
 * (10–15 s), and calls in flight are released; a probe finds the engine again.
 *
 * States: `closed` (calls go through), `open` (calls refused; a probe call runs every
 * PROBE_INTERVAL_MS: the half-open trial), back to `closed` on the first answer of the engine.
 *
 * What opens it: only the engine being away, never one request's failure. GetSystemInfo (the
 * cheapest call, used by the probe and /ready, with a short deadline) failing opens it. Any other
 * call's UNAVAILABLE is only a suspicion: the engine also answers UNAVAILABLE for one request whose
 * visibility query its store cannot run (a NUL once did, and closed the API to every client), so
 * the breaker asks the probe first and opens only if it fails. That costs a real outage one probe's
 * round trip (connection refused: at once). Another call passing its deadline says nothing: a long
 * call may pass it on an engine that answers everything else (and a busy machine would turn each
 * into a probe that can itself be late); a frozen engine is found by the next GetSystemInfo.
 *
 * Why not a library such as opossum: its breaker opens on the share of failed calls in a rolling
 * window and takes the next real request as the half-open trial. Here the signal is the transport
 * itself, seen on every gRPC attempt by an interceptor placed under the Temporal client's retry
 * interceptor (which otherwise hides it for the whole deadline), and recovery must not wait for
 * traffic, nor take a long poll of 70 s as its trial. That is the few lines below.
 *
 * Cost of a false alarm: a probe that fails although the engine is there (a dropped connection
 * the channel re-establishes at once) means 503s for about one probe interval.
 */
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js'

/** Set by the outermost interceptor on the options every attempt of a call is made with. */
const CALL_STATE = Symbol('engine call state')
interface CallState { cancelled: boolean }

/**
 * An attempt that never reaches the channel and never ends. The Temporal client's retry
 * interceptor keeps scheduling attempts after its call was cancelled (it clears no timer): they
 * would repeat a start or a signal the client was already answered 503 for, and after shutdown
 * throw "Channel has been shut down" from a timer. Such attempts get this call instead.
 */
function inertAttempt (): InterceptingCall {
  const inert = {
    start () {},
    sendMessage () {},
    sendMessageWithContext () {},
    startRead () {},
    halfClose () {},
    cancelWithStatus () {},
    getPeer: () => '',
    getAuthContext: () => null
  }
  return new InterceptingCall(inert, { start () {} })
}

/** A call refused, or ended early, because the breaker is open (plugins/app/engine/errors.ts maps it to 503). */
export class EngineBreakerOpenError extends Error {
  constructor () { super('The workflow engine is unreachable') }
}

/** How often the open breaker asks the engine; with gRPC's reconnect backoff capped at 1 s, recovery follows within ~2 s. */
const PROBE_INTERVAL_MS = 500

/** gRPC method whose failure means the engine is away: the cheapest call, used by readiness and the probe. */
const SYSTEM_INFO = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo'

/** gRPC channel arguments that keep reconnect attempts at most ~1 s apart (default backoff grows to 120 s). */
export const RECONNECT_CHANNEL_ARGS = {
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 1000
}

export interface EngineBreakerEvents {
  onOpen?: (reason: string) => void
  onClose?: (downMs: number) => void
}

export class EngineBreaker {
  #state: 'closed' | 'open' = 'closed'
  #openedAt = 0
  #timer: NodeJS.Timeout | undefined
  #probing = false
  #confirming = false
  #stopped = false
  readonly #listeners = new Set<() => void>()

  /** `probe` asks the engine something cheap with a short deadline, resolving if it answered. */
  constructor (private readonly probe: () => Promise<unknown>, private readonly events: EngineBreakerEvents = {}) {}

  get isOpen (): boolean { return this.#state === 'open' }

  /**
   * The gRPC interceptors of the connection around the client's `retry` interceptor: the outer one
   * marks a cancelled call; the inner one sees every attempt: a failed GetSystemInfo opens the
   * breaker, another call's UNAVAILABLE has the probe confirm first (`suspect`), any answer of the
   * engine closes it, and attempts of a cancelled call, or after shutdown, are not made.
   */
  interceptors (retry: Interceptor): Interceptor[] {
    const markCancel: Interceptor = (options, nextCall) => {
      const state: CallState = { cancelled: false }
      const marked: typeof options & { [CALL_STATE]: CallState } = { ...options, [CALL_STATE]: state }
      return new InterceptingCall(nextCall(marked), {
        cancel: (next) => { state.cancelled = true; next() }
      })
    }
    const watch: Interceptor = (options, nextCall) => {
      const state = (options as { [CALL_STATE]?: CallState })[CALL_STATE]
      if (this.#stopped || state?.cancelled) return inertAttempt()
      const method = options.method_definition.path
      return new InterceptingCall(nextCall(options), {
        start: (metadata, listener, next) => {
          next(metadata, {
            onReceiveStatus: (received, nextStatus) => {
              const unanswered = received.code === status.UNAVAILABLE || received.code === status.DEADLINE_EXCEEDED
              const reason = received.code === status.UNAVAILABLE ? received.details : 'the engine did not answer in time'
              if (unanswered && method === SYSTEM_INFO) this.open(reason)
              else if (received.code === status.UNAVAILABLE) this.suspect(reason)
              else if (received.code !== status.CANCELLED && received.code !== status.DEADLINE_EXCEEDED) this.close()
              nextStatus(received)
            }
          })
        }
      })
    }
    return [markCancel, retry, watch]
  }

  /**
   * Runs `fn` unless the breaker is open; rejects with EngineBreakerOpenError at once when it is, or when it
   * opens while `fn` runs (then `abort` releases the call).
   */
  async run<T> (fn: () => Promise<T>, abort: () => void): Promise<T> {
    if (this.isOpen) throw new EngineBreakerOpenError()
    let onOpen: (() => void) | undefined
    const opened = new Promise<never>((_resolve, reject) => {
      onOpen = () => { abort(); reject(new EngineBreakerOpenError()) }
      this.#listeners.add(onOpen)
    })
    try {
      return await Promise.race([fn(), opened])
    } finally {
      if (onOpen) this.#listeners.delete(onOpen)
    }
  }

  /**
   * A call went unanswered: the engine may be away, or may have failed that call alone. Opens only
   * when the probe fails too; one probe at a time answers for every suspicion meanwhile.
   */
  suspect (reason: string): void {
    if (this.#state === 'open' || this.#confirming || this.#stopped) return
    this.#confirming = true
    this.probe().then(() => { this.close() }, () => { this.open(reason) }).finally(() => { this.#confirming = false })
  }

  open (reason: string): void {
    if (this.#state === 'open' || this.#stopped) return
    this.#state = 'open'
    this.#openedAt = Date.now()
    this.events.onOpen?.(reason)
    for (const listener of [...this.#listeners]) listener()
    this.#schedule()
  }

  close (): void {
    if (this.#state === 'closed') return
    this.#state = 'closed'
    clearTimeout(this.#timer)
    this.events.onClose?.(Date.now() - this.#openedAt)
  }

  /** Stops probing for good (shutdown). */
  stop (): void {
    this.#stopped = true
    clearTimeout(this.#timer)
  }

  #schedule (): void {
    if (this.#stopped || this.#state === 'closed') return
    this.#timer = setTimeout(() => { void this.#probe() }, PROBE_INTERVAL_MS)
    this.#timer.unref()
  }

  async #probe (): Promise<void> {
    if (this.#probing) return
    this.#probing = true
    try {
      await this.probe()
      this.close()
    } catch { /* still unreachable */ } finally {
      this.#probing = false
      this.#schedule()
    }
  }
}
