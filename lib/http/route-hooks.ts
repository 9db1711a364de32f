/**
 * A hook of a plugin's own on one route, set from an `onRoute` hook: it runs for that route only,
 * so the other routes pay nothing for it (an `addHook` hook runs on every request).
 */
import type { RouteOptions } from 'fastify'

type RouteHookName = 'onRequest' | 'preHandler' | 'preSerialization' | 'onSend' | 'onResponse'

/** Adds `hook` after the route's own hooks of that name (Fastify takes one function or an array). */
export function addRouteHook<K extends RouteHookName> (route: RouteOptions, name: K, hook: unknown): void {
  route[name] = [...[route[name] ?? []].flat(), hook] as never
}
