/**
 * Trace keys and value caps (core/src/trace/layout.ts, assemble.ts): ids that a file system or S3
 * would confuse get keys of their own, and large values are cut with a marker.
 */
import t from 'tap'
import { capValue, runKey, traceKey } from '@flowport/core/trace'

const RUN = '0198a9f2-6c1e-7f3a-9d2b-5e8c4a1b7d60'

t.test('workflow ids that differ only in special characters, case or beyond a file name\'s length get distinct keys', async (t) => {
  const ids = ['a/b', 'a_b', 'a?b', 'a b', 'a%2Fb', 'A/B', 'order', 'Order', 'ORDER', '..', '.', '../etc', 'x'.repeat(1000), `${'x'.repeat(999)}y`, 'ü', 'u\u0308']
  const keys = ids.map((id) => traceKey(id, RUN))
  t.equal(new Set(keys).size, ids.length, 'all distinct')
  t.equal(new Set(keys.map((k) => k.toLowerCase())).size, ids.length, 'still distinct on a case-insensitive disk')
  for (const key of keys) {
    const [dir, file] = key.split('/')
    t.match(dir, /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}~[0-9a-f]{16}$|^~[0-9a-f]{16}$/, `${dir}: a safe directory name`)
    t.ok(Buffer.byteLength(dir) <= 81, 'short enough for any file system')
    t.equal(file, `${RUN}.json`)
  }
  t.equal(runKey('hello-1', RUN), runKey('hello-1', RUN), 'stable')
})

t.test('values above the limit become a marker that says what was cut', async (t) => {
  t.same(capValue({ a: 1 }, 1024), { a: 1 })
  t.equal(capValue(null, 1024), null)
  t.equal(capValue(undefined, 1024), null)
  const big = { text: 'x'.repeat(5000) }
  const capped = capValue(big, 1024) as { $truncated: { bytes: number, limit: number, preview: string } }
  t.equal(capped.$truncated.bytes, JSON.stringify(big).length)
  t.equal(capped.$truncated.limit, 1024)
  t.ok(JSON.stringify(big).startsWith(capped.$truncated.preview))
  t.ok(JSON.stringify(capped).length < 1200, 'the marker itself stays small')
  t.same(capValue('é'.repeat(600), 1024), { $truncated: { bytes: 1202, limit: 1024, preview: JSON.stringify('é'.repeat(600)).slice(0, 1024) } }, 'counted in UTF-8 bytes')
})
