/**
 * Ids whose current run was last seen with a history longer than one page: their reads start with
 * the describe the first page could not spare (engine/runs/history.ts, `readLatestPage`), so
 * polling a long run costs one call, not two. A hint: a stale entry costs a call, never a wrong answer.
 */
import { LRUCache } from 'lru-cache'

/** About 100 bytes each. */
const MAX_IDS = 10_000

export class LongHistories {
  readonly #ids = new LRUCache<string, true>({ max: MAX_IDS })

  has (workflowId: string): boolean { return this.#ids.has(workflowId) }

  seen (workflowId: string, long: boolean): void {
    if (long) this.#ids.set(workflowId, true)
    else this.#ids.delete(workflowId)
  }

  clear (): void { this.#ids.clear() }
}
