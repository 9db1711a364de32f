import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tlsFromSettings } from '@flowport/core/tls'

t.test('TLS only when asked for or implied', async (t) => {
  t.equal(tlsFromSettings({ TEMPORAL_TLS: false }), undefined)
  t.same(tlsFromSettings({ TEMPORAL_TLS: true }), { serverNameOverride: undefined, serverRootCACertificate: undefined, clientCertPair: undefined })
  t.ok(tlsFromSettings({ TEMPORAL_TLS: false, TEMPORAL_API_KEY: 'k' }), 'an API key implies TLS (Temporal Cloud)')
})

t.test('certificate files are read; a missing one names its path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-tls-'))
  for (const name of ['ca.pem', 'crt.pem', 'key.pem']) writeFileSync(join(dir, name), name)
  const tls = tlsFromSettings({
    TEMPORAL_TLS: false,
    TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    TEMPORAL_TLS_CA_PATH: join(dir, 'ca.pem'),
    TEMPORAL_TLS_CERT_PATH: join(dir, 'crt.pem'),
    TEMPORAL_TLS_KEY_PATH: join(dir, 'key.pem')
  })
  t.equal(tls?.serverNameOverride, 'temporal.internal')
  t.equal(tls?.serverRootCACertificate?.toString(), 'ca.pem')
  t.equal(tls?.clientCertPair?.crt.toString(), 'crt.pem', 'a client certificate implies TLS')
  t.equal(tls?.clientCertPair?.key.toString(), 'key.pem')
  t.throws(() => tlsFromSettings({ TEMPORAL_TLS: true, TEMPORAL_TLS_CA_PATH: join(dir, 'missing.pem') }), { message: /missing\.pem/ })
})
