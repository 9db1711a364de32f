/**
 * The dev stack's store listens where the API does: on loopback by default, and on every address
 * when `HOST=0.0.0.0 npm start` serves other machines, whose clients upload to presigned URLs.
 * 127.0.0.2 is a loopback address that a server bound to 127.0.0.1 does not answer on, and one
 * bound to 0.0.0.0 does: it tells the two apart without a second network interface.
 */
import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isLoopback, startObjectStore } from '../cli/object-store.js'

const answers = async (url: string): Promise<boolean> =>
  await fetch(url, { signal: AbortSignal.timeout(5000) }).then((res) => res.ok, () => false)

t.test('the store listens on 127.0.0.1 unless told another address', async (t) => {
  const store = await startObjectStore({ dataDir: mkdtempSync(join(tmpdir(), 'flowport-store-')) })
  t.teardown(async () => { await store.stop() })
  t.ok(await answers(`http://127.0.0.1:${store.port}/health`), 'answers on 127.0.0.1')
  t.notOk(await answers(`http://127.0.0.2:${store.port}/health`), 'not on another address')
})

t.test('with host 0.0.0.0 it answers on every address of the machine', async (t) => {
  const store = await startObjectStore({ dataDir: mkdtempSync(join(tmpdir(), 'flowport-store-')), host: '0.0.0.0' })
  t.teardown(async () => { await store.stop() })
  t.ok(await answers(`http://127.0.0.2:${store.port}/health`), 'answers on 127.0.0.2')
  t.equal(store.settings.SERVICE_CLOUD_ENDPOINT, `http://127.0.0.1:${store.port}`, 'the API and the worker on this machine still use loopback')
})

t.test('loopback names and addresses', async (t) => {
  for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) t.ok(isLoopback(host), host)
  for (const host of ['0.0.0.0', '::', '10.0.0.5', 'flowport.example.com']) t.notOk(isLoopback(host), host)
})
