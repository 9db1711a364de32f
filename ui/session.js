// The page's way to the API: @flowport/client's FlowportClient (bundled for the browser by
// plugins/external/ui.ts) on this origin, with the key in `Authorization`. The key lives in sessionStorage
// (this tab, until it closes) and never goes into a URL.
import { FlowportClient } from './vendor/client.mjs'

const TOKEN_KEY = 'flowport.token'
const listeners = new Set()
let current = null
let credentialRead = null

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set (value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value)
    else sessionStorage.removeItem(TOKEN_KEY)
    current = null
    credentialRead = null
  }
}

/** Called with the API's refusal (its message) when a request is refused with 401: the app asks for a key. */
export function onUnauthorized (listener) {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Every request of the client, streams included: a 401 tells the listeners, in the API's words. */
async function watchedFetch (input, init) {
  const res = await fetch(input, init)
  if (res.status === 401 && listeners.size > 0) {
    const body = await res.clone().json().catch(() => null)
    const message = typeof body?.message === 'string' ? body.message : `HTTP ${res.status}`
    for (const listener of listeners) listener(message)
  }
  return res
}

/** The client for the key this tab holds now. */
export function client () {
  current ??= new FlowportClient({ baseUrl: window.location.origin, token: token.get() ?? undefined, fetch: watchedFetch })
  return current
}

/**
 * What this tab's key may do (GET /me), read once per key: views disable what it cannot do and say
 * why. Null when it cannot be read; the API still refuses with 403 whatever the page shows.
 */
export function credential () {
  credentialRead ??= client().me().catch(() => null)
  return credentialRead
}

/** Why a credential cannot use a scope, in words; null when it can (or when the page could not tell). */
export function lacking (cred, scope) {
  if (!cred || cred.scopes.includes(scope)) return null
  return `${cred.kind === 'runToken' ? 'This run token' : `Key ${cred.keyId}`} lacks scope ${scope}`
}
