/**
 * Abort signals of a request's engine calls.
 */
import type { FastifyReply } from 'fastify'

/**
 * An AbortSignal that fires when the client goes away before its response is written, so long
 * waits (POST /workflow/run, stop escalation) release their engine calls with the request.
 */
export function clientGone (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  // The response's `close` (not the request's, which fires once the body is read) marks a lost client.
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) controller.abort() })
  return controller.signal
}

/**
 * Runs `fn` with a signal of its own that follows `signal`. The Temporal client adds an abort
 * listener to the signal of every call and never removes it, so a signal shared by many calls
 * (a run's wait loop, a hub polling for days) would pile them up; the listener added here is
 * removed when the call ends.
 */
export async function withCallSignal<T> (signal: AbortSignal, fn: (callSignal: AbortSignal) => Promise<T>): Promise<T> {
  const call = new AbortController()
  const abort = () => { call.abort(signal.reason) }
  if (signal.aborted) abort()
  else signal.addEventListener('abort', abort, { once: true })
  try {
    return await fn(call.signal)
  } finally {
    signal.removeEventListener('abort', abort)
  }
}
