/**
 * The shared rate-limit store (SERVICE_RATE_LIMIT_REDIS_URL): one ioredis client per replica,
 * handed to @fastify/rate-limit's `redis` option, so that every replica counts a key in the same
 * Redis counter. A rate limiter must not take the API down with it: while Redis is unreachable a
 * command fails at once instead of waiting (no offline queue, short connect and command
 * timeouts, as the plugin's README recommends), the plugin lets the request through uncounted
 * (`skipOnError`), and the log says once when Redis went away and once when it is back.
 */
import type { FastifyBaseLogger } from 'fastify'

/** The password of a Redis URL, so that the log redactor can keep it out of every line. */
export function redisPassword (url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    const password = decodeURIComponent(new URL(url).password)
    return password === '' ? undefined : password
  } catch {
    return undefined
  }
}

/** Connects (or starts retrying: ioredis keeps reconnecting in the background) and never throws. */
export async function connectRateLimitRedis (url: string, log: FastifyBaseLogger) {
  // Where, never the URL itself (it may hold a password).
  const where = new URL(url).host
  // Imported here, not at the top: without a shared store the API never loads the client (about 0.8 MiB of heap).
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 500,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false
  })
  let down = false
  let closing = false
  // A refused or failed connection is an 'error'; a server that goes away is first a 'close'.
  const wentDown = (reason: string): void => {
    if (down || closing) return
    down = true
    log.warn({ redis: where, reason }, 'Rate-limit Redis unreachable: requests pass uncounted until it is back')
  }
  redis.on('error', (err: Error) => { wentDown(err.message) })
  redis.on('close', () => { wentDown('connection closed') })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log.info({ redis: where }, 'Rate-limit Redis reachable again: requests are counted')
  })
  try {
    await redis.connect()
  } catch { /* logged by the listeners; ioredis keeps reconnecting */ }
  /** Ends the client and its reconnection attempts (app close). */
  const close = async (): Promise<void> => {
    closing = true
    if (redis.status === 'ready') await redis.quit().catch(() => {})
    redis.disconnect()
  }
  return { redis, close }
}
