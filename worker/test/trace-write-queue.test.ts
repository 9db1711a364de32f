/**
 * The write-behind queue of failed-attempt records (worker/src/trace/write-queue.ts): writes given
 * by the test, each settled when the test says, so that order, bound, drops and the shutdown
 * deadline are observed exactly. The worker with real storage: trace.test.ts and
 * test/trace-storage-hang.test.ts.
 */
import t from 'tap'
import { TraceWriteQueue, type DropReason } from '../src/trace/write-queue.js'
import type { Logger } from '../src/common/logger.js'

/** A write that settles when the test says so, and tells when it started. */
function controlledWrite (started: string[], name: string) {
  let settle!: (error?: Error) => void
  const done = new Promise<void>((resolve, reject) => { settle = (error) => { error === undefined ? resolve() : reject(error) } })
  return { write: async () => { started.push(name); await done }, settle }
}

function queue (limit: number) {
  const lines: Array<[keyof Logger, string]> = []
  const log = (level: keyof Logger) => (message: string) => { lines.push([level, message]) }
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
  const dropped: Record<DropReason, number> = { queue_full: 0, failed: 0, shutdown: 0 }
  const pending: number[] = []
  const q = new TraceWriteQueue({
    limit,
    logger,
    metrics: { pending: (n) => { pending.push(n) }, dropped: (reason, n) => { dropped[reason] += n } }
  })
  const warnings = () => lines.filter(([level]) => level === 'warn').map(([, m]) => m)
  const infos = () => lines.filter(([level]) => level === 'info').map(([, m]) => m)
  return { q, dropped, pending, warnings, infos }
}

/** Lets queued promise callbacks run. */
const settleMicrotasks = async () => { for (let i = 0; i < 10; i++) await Promise.resolve() }

t.test('writes run one at a time, in the order they were queued; push returns at once', async (t) => {
  const { q, pending } = queue(10)
  const started: string[] = []
  const writes = ['a', 'b', 'c'].map((name) => controlledWrite(started, name))
  for (const [i, w] of writes.entries()) q.push(`record ${i}`, w.write)
  await settleMicrotasks()
  t.same(started, ['a'], 'only the first write runs while it is not done')
  t.same(pending, [1, 2, 3], 'the pending gauge counts every queued record')
  writes[0].settle()
  await settleMicrotasks()
  t.same(started, ['a', 'b'])
  writes[1].settle()
  writes[2].settle()
  t.equal(await q.flushed(60_000), true, 'flushed once every write is done')
  t.same(started, ['a', 'b', 'c'])
  t.equal(pending.at(-1), 0)
})

t.test('beyond the limit records are dropped and counted; one warning per episode, one line when writes succeed again', async (t) => {
  const { q, dropped, warnings, infos } = queue(2)
  const started: string[] = []
  const first = controlledWrite(started, 'first')
  const second = controlledWrite(started, 'second')
  q.push('first', first.write)
  q.push('second', second.write)
  const never = controlledWrite(started, 'never')
  q.push('third', never.write)
  q.push('fourth', never.write)
  t.equal(dropped.queue_full, 2, 'both records past the limit are counted')
  t.equal(warnings().length, 1, 'but warned about once')
  t.match(warnings()[0], /attempt records are being dropped \(queue_full: the queue holds its limit of 2\)/)
  first.settle(new Error('storage said no'))
  await settleMicrotasks()
  t.equal(dropped.failed, 1, 'a failed write is a dropped record too')
  t.equal(warnings().length, 1, 'in the same episode: no second warning')
  second.settle()
  t.equal(await q.flushed(60_000), true)
  t.same(started, ['first', 'second'], 'dropped records are never written')
  t.same(infos(), ['Trace: attempt records are written again; 3 dropped meanwhile'])

  const after = controlledWrite(started, 'after')
  q.push('after', after.write)
  q.push('after 2', never.write)
  q.push('after 3', never.write)
  t.equal(warnings().length, 2, 'a new episode warns again')
})

t.test('shutdown: waits for the queue up to its deadline, then drops what is left and takes no more', async (t) => {
  const { q, dropped, warnings } = queue(10)
  const started: string[] = []
  const hung = controlledWrite(started, 'hung')
  const waiting = controlledWrite(started, 'waiting')
  q.push('hung', hung.write)
  q.push('waiting', waiting.write)
  await q.close(50) // the first write never settles by itself
  t.same(warnings(), ['Trace: 2 of 2 attempt records not written within 50 ms of shutdown; dropped'])
  q.push('late', waiting.write)
  t.equal(dropped.shutdown, 1, 'a record queued after shutdown is dropped')
  hung.settle() // the store's own timeout ends the write in progress
  t.equal(await q.flushed(60_000), true)
  t.same(started, ['hung'], 'the record still waiting is not written')
  t.equal(dropped.shutdown, 2)

  const healthy = queue(10)
  const written: string[] = []
  const quick = controlledWrite(written, 'quick')
  healthy.q.push('quick', quick.write)
  setImmediate(() => { quick.settle() })
  await healthy.q.close(60_000)
  t.same(written, ['quick'], 'a healthy queue is written out before close returns')
  t.same(healthy.warnings(), [])
})
