/**
 * Bounds, pure (the API, the worker and workflow code use them): many calls at once with a bounded
 * number in flight (a page of runs looks up each run's secondary facts, a trace reads its attempt
 * records: one after another, a slow call is paid once per item, yet a thousand must not leave
 * together), and a wait bounded in time.
 */

/** Maps `items` with at most `limit` calls of `fn` in flight; the results in the order of `items`. */
export async function mapBounded<T, R> (items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return results
}

/** `promise`'s value, or `fallback` if `ms` pass first; the timer is cleared either way. */
export async function within<T, F> (promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => { timer = setTimeout(() => { resolve(fallback) }, ms) })])
  } finally {
    clearTimeout(timer)
  }
}
