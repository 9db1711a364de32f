/**
 * Workflow ids whose current run was last seen with a history longer than one page. The latest
 * result and input start with the first page of the id's history, which names a short run in one
 * engine call (plugins/app/engine/runs/history.ts, `readLatestPage`); for a longer one it cannot, and a describe
 * must follow. Reads of these ids start with the describe instead, so that polling a long run
 * costs one call, not two. A hint, not a fact: a stale entry costs a call, never a wrong answer.
 */
import { LRUCache } from 'lru-cache'

/** Ids remembered at most (about 100 bytes each); the least recently seen leave first. */
const MAX_IDS = 10_000

export class LongHistories {
  readonly #ids = new LRUCache<string, true>({ max: MAX_IDS })

  has (workflowId: string): boolean { return this.#ids.has(workflowId) }

  /** What a read found about the id's current run: whether its history is longer than one page. */
  seen (workflowId: string, long: boolean): void {
    if (long) this.#ids.set(workflowId, true)
    else this.#ids.delete(workflowId)
  }

  clear (): void { this.#ids.clear() }
}
