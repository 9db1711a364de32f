/**
 * The keys file is reloaded when its content changes, whichever way it was replaced: written in
 * place, a new file renamed over it, and the `..data` symlink swap with which Kubernetes updates a
 * mounted Secret or ConfigMap (done step by step as its AtomicWriter does). Invalid content keeps
 * the last good keys and is logged once; an unchanged file is not reloaded.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { KeyStore } from '../plugins/app/access/key-store.js'
import { generateKey, hashKey } from '../plugins/app/access/keys.js'
import { until } from './helpers/processes.js'

const content = (...keys: Array<[string, string]>) => JSON.stringify({ keys: keys.map(([id, key]) => ({ id, hash: hashKey(key), scopes: ['read'] })) })

function storeOf (t: Test, file: string) {
  const lines: Array<{ msg: string, why?: string, reason?: string }> = []
  const log = { info: (o: object, msg: string) => { lines.push({ ...o, msg }) }, error: (o: object, msg: string) => { lines.push({ ...o, msg }) } }
  const store = new KeyStore({ file, log: log as never })
  store.watch()
  t.teardown(() => { store.stop() })
  return { store, lines }
}

function tempDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-keys-reload-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

/**
 * Kubernetes' AtomicWriter (pkg/volume/util/atomic_writer.go): the payload goes into a new
 * `..<timestamp>` directory, a `..data_tmp` symlink to it is renamed over `..data`, the
 * user-visible `keys.json -> ..data/keys.json` is made once, and the old directory is removed.
 */
function atomicWriter (dir: string) {
  let generation = 0
  let current: string | undefined
  return (text: string): void => {
    const stamp = `..2026_11_27_23_00_0${generation++}.${process.pid}`
    mkdirSync(join(dir, stamp))
    writeFileSync(join(dir, stamp, 'keys.json'), text)
    symlinkSync(stamp, join(dir, '..data_tmp'))
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'))
    if (current === undefined) symlinkSync(join('..data', 'keys.json'), join(dir, 'keys.json'))
    else rmSync(join(dir, current), { recursive: true })
    current = stamp
  }
}

const replacements: Array<[string, (dir: string) => (text: string) => void]> = [
  ['written in place', (dir) => (text) => { writeFileSync(join(dir, 'keys.json'), text) }],
  ['a new file renamed over it', (dir) => (text) => {
    writeFileSync(join(dir, '.keys.json.new'), text)
    renameSync(join(dir, '.keys.json.new'), join(dir, 'keys.json'))
  }],
  ['the ..data symlink swapped as Kubernetes does', atomicWriter]
]

for (const [how, writer] of replacements) {
  t.test(`a key added to the file is accepted, ${how}`, async (t) => {
    const dir = tempDir(t)
    const write = writer(dir)
    const [first, second] = [generateKey(), generateKey()]
    write(content(['first', first]))
    const { store, lines } = storeOf(t, join(dir, 'keys.json'))
    t.equal(store.find(first)?.id, 'first')
    t.equal(store.find(second), undefined)

    write(content(['first', first], ['second', second]))
    t.ok(await until(() => store.find(second)?.id === 'second', 100, 50), 'the added key is accepted')
    t.equal(store.find(first)?.id, 'first', 'the first one still is')

    write('{"keys": [{"id": "broken"')
    t.ok(await until(() => lines.some((l) => l.msg.startsWith('API keys file rejected')), 100, 50), 'invalid content is logged')
    t.equal(store.find(second)?.id, 'second', 'and the last good keys stay')

    write(content(['second', second]))
    t.ok(await until(() => store.find(first) === undefined, 100, 50), 'a removed key is refused')
    t.equal(lines.filter((l) => l.msg.startsWith('API keys file rejected')).length, 1, 'the invalid content was logged once')
    t.equal(store.find(second)?.id, 'second')
  })
}

t.test('events that leave the content as it was do not reload it', async (t) => {
  const dir = tempDir(t)
  const key = generateKey()
  writeFileSync(join(dir, 'keys.json'), content(['k', key]))
  const { store, lines } = storeOf(t, join(dir, 'keys.json'))
  writeFileSync(join(dir, 'keys.json'), content(['k', key]))
  writeFileSync(join(dir, 'unrelated.txt'), 'x')
  // A change after them: once it is in, the events before it have been handled.
  const marker = generateKey()
  writeFileSync(join(dir, 'keys.json'), content(['k', key], ['marker', marker]))
  t.ok(await until(() => store.find(marker) !== undefined, 100, 50))
  t.same(lines.map((l) => `${l.msg} (${l.why})`), ['API keys reloaded (file changed)'], 'one reload: the marker\'s')
})
