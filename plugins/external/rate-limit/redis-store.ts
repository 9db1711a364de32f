/**
 * The rate-limit store every replica shares (SERVICE_RATE_LIMIT_REDIS_URL). A rate limiter must not
 * take the API down with it: an unreachable Redis fails a command at once and the request passes
 * uncounted (fail open); one that never answers opens a breaker, so requests stop paying its timeout.
 */
import { createRequire } from 'node:module'
import type { FastifyBaseLogger } from 'fastify'
import type { FastifyRateLimitOptions, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'

/** For the log redactor. */
export function redisPassword (url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  try {
    const password = decodeURIComponent(new URL(url).password)
    return password === '' ? undefined : password
  } catch {
    return undefined
  }
}

export const BREAKER_FAILURES = 3
export const BREAKER_OPEN_MS = 10_000

type Counted = { current: number, ttl: number } | null
type Done = (err: Error | null, res: Counted) => void
interface LimitStore {
  incr: (key: string, done: Done, timeWindow: number, max: number) => void
  read?: (key: string, done: Done, timeWindow: number, max: number) => void
  child: (routeOptions: unknown) => LimitStore
}
type RedisStoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key: string) => LimitStore

class Breaker {
  failures = 0
  openUntil = 0

  constructor (private readonly opened: (reason: string) => void, private readonly closed: () => void) {}

  get open (): boolean { return Date.now() < this.openUntil }

  admit (): boolean {
    if (this.open) return false
    // The first request after the open period is the trial; the others keep passing until it answers.
    if (this.openUntil !== 0) this.openUntil = Date.now() + BREAKER_OPEN_MS
    return true
  }

  outcome (err: Error | null): void {
    if (err === null) {
      this.reset()
      return
    }
    this.failures++
    if (this.failures < BREAKER_FAILURES) return
    this.openUntil = Date.now() + BREAKER_OPEN_MS
    this.opened(`${this.failures} commands in a row failed (${err.message}); not asked for ${BREAKER_OPEN_MS / 1000} s at a time`)
  }

  reset (): void {
    const wasOpen = this.openUntil !== 0
    this.failures = 0
    this.openUntil = 0
    if (wasOpen) this.closed()
  }
}

/** An open breaker answers an error at once, which `skipOnError` turns into an uncounted request. */
function breakerStore (redis: unknown, nameSpace: string, breaker: Breaker): FastifyRateLimitStoreCtor {
  const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreClass
  const guard = (store: LimitStore): LimitStore => {
    const ask = (method: 'incr' | 'read') => (key: string, done: Done, timeWindow: number, max: number): void => {
      if (!breaker.admit()) {
        done(new Error('Rate-limit Redis breaker open'), null)
        return
      }
      store[method]!(key, (err, res) => {
        breaker.outcome(err)
        done(err, res)
      }, timeWindow, max)
    }
    return { incr: ask('incr'), read: ask('read'), child: (routeOptions) => guard(store.child(routeOptions)) }
  }
  return class {
    // The plugin passes its resolved settings, which carry these two (its types do not say so).
    constructor (options: FastifyRateLimitOptions) {
      const { continueExceeding = false, exponentialBackoff = false } = options as { continueExceeding?: boolean, exponentialBackoff?: boolean }
      return guard(new RedisStore(continueExceeding, exponentialBackoff, redis, nameSpace))
    }
  } as unknown as FastifyRateLimitStoreCtor
}

export async function connectRateLimitRedis (url: string, log: FastifyBaseLogger) {
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
  const wentDown = (reason: string): void => {
    if (down || closing) return
    down = true
    log.warn({ redis: where, reason }, 'Rate-limit Redis unreachable: requests pass uncounted until it is back')
  }
  const cameBack = (): void => {
    if (!down) return
    down = false
    log.info({ redis: where }, 'Rate-limit Redis reachable again: requests are counted')
  }
  const breaker = new Breaker(wentDown, cameBack)
  redis.on('error', (err: Error) => { wentDown(err.message) })
  redis.on('close', () => { wentDown('connection closed') })
  redis.on('ready', () => {
    breaker.reset()
    cameBack()
  })
  try {
    await redis.connect()
  } catch { /* logged by the listeners; ioredis keeps reconnecting */ }
  const close = async (): Promise<void> => {
    closing = true
    if (redis.status === 'ready') await redis.quit().catch(() => {})
    redis.disconnect()
  }
  return {
    redis,
    close,
    store: (nameSpace: string) => breakerStore(redis, nameSpace, breaker),
    get breakerOpen (): boolean { return breaker.open }
  }
}
