/**
 * Circuit breaker of the engine connection: while the engine is unreachable, calls are refused at
 * once (503) instead of each retrying to its deadline (10–15 s); a probe closes it again.
 * Only a failed GetSystemInfo opens it. Another call's UNAVAILABLE is a suspicion the probe must
 * confirm: the engine also answers UNAVAILABLE to one query its store cannot run (a NUL once closed
 * the API to every client). A passed deadline says nothing (long calls, a busy machine).
 * Not opossum: it opens on a share of failures and takes the next request as its trial; here the
 * signal is the transport, seen per gRPC attempt under the client's retry interceptor (which hides
 * it for the whole deadline), and recovery must wait neither for traffic nor for a 70 s long poll.
 */
import { InterceptingCall, status, type Interceptor } from '@grpc/grpc-js'

const CALL_STATE = Symbol('engine call state')
interface CallState { cancelled: boolean }

/**
 * The client's retry interceptor keeps scheduling attempts after a cancel (it clears no timer): they
 * would repeat a start already answered 503, or throw "Channel has been shut down" after shutdown.
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

export class EngineBreakerOpenError extends Error {
  constructor () { super('The workflow engine is unreachable') }
}

/** How often the open breaker asks the engine; with gRPC's reconnect backoff capped at 1 s, recovery follows within ~2 s. */
const PROBE_INTERVAL_MS = 500

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

  constructor (private readonly probe: () => Promise<unknown>, private readonly events: EngineBreakerEvents = {}) {}

  get isOpen (): boolean { return this.#state === 'open' }

  /** The outer interceptor marks a cancelled call; the inner one, under `retry`, sees every attempt. */
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

  /** Rejects at once while open, or when it opens while `fn` runs (then `abort` releases the call). */
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

  /** Opens only if the probe fails too; one probe answers every suspicion meanwhile. */
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
