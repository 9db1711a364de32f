// The page's only way to the API: public endpoints on this origin, the key in `Authorization`.
// The key lives in sessionStorage (this tab, until it closes) and never goes into a URL.
const TOKEN_KEY = 'flowport.token'
const listeners = new Set()

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set (value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value)
    else sessionStorage.removeItem(TOKEN_KEY)
  }
}

/** Called with the API's error when a request is refused with 401: the app asks for a key. */
export function onUnauthorized (listener) {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Tells the listeners about a 401 (the app asks for a key); returns the error. */
export function refused (error) {
  if (error.status === 401) for (const listener of listeners) listener(error)
  return error
}

export class ApiError extends Error {
  constructor (status, body) {
    super(body && typeof body.message === 'string' ? body.message : `HTTP ${status}`)
    this.name = body && typeof body.error === 'string' ? body.error : 'HttpError'
    this.status = status
    this.body = body
  }
}

export function authHeaders (headers = {}) {
  const key = token.get()
  return key ? { ...headers, authorization: `Bearer ${key}` } : headers
}

/** One API call; the JSON answer, or an ApiError carrying the API's error body. */
export async function api (method, path, body, headers = {}) {
  const init = { method, headers: authHeaders({ accept: 'application/json', ...headers }) }
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  const res = await fetch(path, init)
  const text = await res.text()
  let data = null
  try {
    data = text ? JSON.parse(text) : null
  } catch {
    data = { error: 'HttpError', message: text }
  }
  if (!res.ok) throw refused(new ApiError(res.status, data))
  return data
}

/** A path segment: ids and names may hold any character. */
export const seg = (value) => encodeURIComponent(value)

/** `/workflow/{id}` or, pinned to one run, `/workflow/{id}/runs/{rid}`. */
export const runPath = (workflowId, runId) => `/workflow/${seg(workflowId)}${runId ? `/runs/${seg(runId)}` : ''}`

export const query = (params) => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}
