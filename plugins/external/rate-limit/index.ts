/**
 * Per-key request budgets (@fastify/rate-limit): SERVICE_RATE_LIMIT_MAX requests per
 * SERVICE_RATE_LIMIT_WINDOW_MS for each key (a key's own `rateLimit` in the keys file wins; 0 =
 * unlimited), counted per replica in memory, or in one Redis shared by every replica when
 * SERVICE_RATE_LIMIT_REDIS_URL is set (redis-store.ts). Over budget → 429
 * RateLimitedError with `Retry-After` and the `RateLimit-*` headers. A stream counts once, when it connects. A run token spends its
 * issuing key's budget. Only on with auth on (without keys there is no one to count for); open
 * routes are never counted. While the Redis is unreachable or hangs, requests pass uncounted (fail
 * open, logged; a breaker stops asking a Redis that times out): a rate limiter that turned its own outage into an API outage would do more harm than
 * the traffic it holds back. docs/access-control.md has the details.
 */
import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import { ApiError } from '../../../lib/api-error.js'
import { connectRateLimitRedis } from './redis-store.js'

export default fp(async (fastify) => {
  const { config } = fastify
  if (!fastify.access.keys.enabled) return
  const redisUrl = config.SERVICE_RATE_LIMIT_REDIS_URL
  const shared = redisUrl === undefined ? undefined : await connectRateLimitRedis(redisUrl, fastify.log)
  if (shared) {
    fastify.addHook('onClose', shared.close)
    fastify.metrics?.gauge('flowport_rate_limit_redis_breaker_open', 'Whether requests pass uncounted without asking the rate-limit Redis now (1), after it failed or timed out several times in a row',
      () => shared.breakerOpen ? 1 : 0)
  }
  const budgetOf = (keyId: string) => fastify.access.keys.keys.find((k) => k.id === keyId)?.rateLimit ?? config.SERVICE_RATE_LIMIT_MAX
  await fastify.register(rateLimit, {
    global: true,
    // After auth's onRequest hook (registered first): the key is known.
    hook: 'onRequest',
    timeWindow: config.SERVICE_RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => request.principal?.keyId ?? '',
    // A 0 budget means unlimited; requests without a principal (open routes, preflights, 404s before auth) are not counted.
    allowList: (request, key) => key === '' || budgetOf(key) === 0,
    max: (_request, key) => budgetOf(key),
    enableDraftSpec: true,
    ...(shared && { store: shared.store('flowport-rate-limit-'), skipOnError: true }),
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'RateLimitedError', `Rate limit exceeded: ${context.max} requests per ${config.SERVICE_RATE_LIMIT_WINDOW_MS / 1000} s for this key; retry in ${context.after}`)
  })
}, { name: 'rate-limit', dependencies: ['access', 'errors', 'metrics'] })
