import type { FastifyReply } from 'fastify'

/** Fires when the client goes away before its response is written, so long waits release their engine calls. */
export function clientGone (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  // The response's `close` (not the request's, which fires once the body is read) marks a lost client.
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) controller.abort() })
  return controller.signal
}

/** Waits for `shared` until `signal` aborts; `shared` runs on for the others waiting on it (one leaving must not fail them). */
export async function untilAborted<T> (shared: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return await shared
  signal.throwIfAborted()
  let leave = () => {}
  const left = new Promise<never>((_resolve, reject) => {
    leave = () => { reject(signal.reason) }
    signal.addEventListener('abort', leave, { once: true })
  })
  try {
    return await Promise.race([shared, left])
  } finally {
    signal.removeEventListener('abort', leave)
  }
}
