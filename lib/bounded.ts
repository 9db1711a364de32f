/**
 * Many lookups at once, a bounded number in flight: a page of runs looks up each run's secondary
 * facts in parallel (one after another, a slow lookup is paid once per run), without a thousand
 * engine calls leaving together.
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
