import type { RouteOptions } from 'fastify'

type RouteHookName = 'onRequest' | 'preHandler' | 'preSerialization' | 'onSend' | 'onResponse'

/** A hook on one route only, set from `onRoute`: the other routes pay nothing for it, as they would for `addHook`. */
export function addRouteHook<K extends RouteHookName> (route: RouteOptions, name: K, hook: unknown): void {
  route[name] = [...[route[name] ?? []].flat(), hook] as never
}
