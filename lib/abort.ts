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
