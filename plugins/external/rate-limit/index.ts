/**
 * Per-key request budgets (docs/access-control.md), in memory or in one Redis every replica shares
 * (redis-store.ts). Only with auth on: without keys there is no one to count for.
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
