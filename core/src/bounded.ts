/**
 * Many calls at once, a bounded number in flight: a page of runs looks up each run's secondary
 * facts, a trace reads its attempt records, in parallel (one after another, a slow call is paid
 * once per item) without a thousand calls leaving together. Pure: the API and the worker use it.
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
