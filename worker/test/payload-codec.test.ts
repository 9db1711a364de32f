/**
 * The claim-check codec (docs/large-payloads.md) against the real S3-compatible server that
 * scripts/test.ts starts (moto): what it stores, what it leaves alone, and how it refuses data
 * that is missing or not what its reference says.
 */
import t, { type Test } from 'tap'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { defaultPayloadConverter, type Payload } from '@temporalio/common'
import { ClaimCheckCodec, PayloadMissingError, PayloadStorageError, PayloadStore, REFERENCE_METADATA_KEY, referenceOf } from '@flowport/core/payloads'

const endpoint = process.env.FLOWPORT_TEST_S3_ENDPOINT
if (!endpoint) throw new Error('FLOWPORT_TEST_S3_ENDPOINT is not set: run the tests with `npm test`, which starts the S3 server')

function store (t: Test, thresholdBytes = 1024): PayloadStore {
  const s = new PayloadStore({
    thresholdBytes,
    s3: {
      bucket: 'flowport-traces',
      prefix: `codec-test-${randomUUID()}/`,
      region: 'us-east-1',
      endpoint,
      accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID,
      secretAccessKey: process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY
    }
  })
  t.teardown(() => { s.close() })
  return s
}

t.test('a payload above the threshold is stored under its SHA-256 and comes back byte for byte', async (t) => {
  const s = store(t)
  const codec = new ClaimCheckCodec(s)
  const value = { blob: randomBytes(4096).toString('base64') }
  const original = defaultPayloadConverter.toPayload(value)
  const [encoded] = await codec.encode([original])
  const reference = referenceOf(encoded)
  const sha256 = createHash('sha256').update(original.data!).digest('hex')
  t.same(reference, { payloadRef: `sha256/${sha256}`, bytes: original.data!.length, sha256 })
  t.ok(encoded.data!.length < 200, 'the engine gets a small payload')
  t.same(defaultPayloadConverter.fromPayload(encoded), reference, 'read without the codec, the payload is the reference as JSON')
  t.same(Buffer.from(await s.get(reference!.payloadRef)), Buffer.from(original.data!), 'the object is the value\'s JSON text')
  const [decoded] = await codec.decode([encoded])
  t.same(Buffer.from(decoded.data!), Buffer.from(original.data!))
  t.same(Object.keys(decoded.metadata!), Object.keys(original.metadata!), 'the original metadata is restored')
  t.same(defaultPayloadConverter.fromPayload(decoded), value)
})

t.test('payloads at or below the threshold pass through as the same objects', async (t) => {
  const codec = new ClaimCheckCodec(store(t))
  const small = [defaultPayloadConverter.toPayload({ name: 'Ada' }), defaultPayloadConverter.toPayload('x'.repeat(1000)), defaultPayloadConverter.toPayload(undefined)]
  const encoded = await codec.encode(small)
  t.equal(encoded.length, 3)
  encoded.forEach((p, i) => t.equal(p, small[i], `payload ${i} untouched`))
  const decoded = await codec.decode(encoded)
  decoded.forEach((p, i) => t.equal(p, small[i], `payload ${i} decoded untouched`))
})

t.test('a reference whose object is gone, or holds other data, is refused', async (t) => {
  const s = store(t)
  const codec = new ClaimCheckCodec(s)
  const [encoded] = await codec.encode([defaultPayloadConverter.toPayload('y'.repeat(5000))])
  const reference = referenceOf(encoded)!
  const forged: Payload = { ...encoded, data: Buffer.from(JSON.stringify({ ...reference, payloadRef: `sha256/${'0'.repeat(64)}` })) }
  await t.rejects(codec.decode([forged]), PayloadMissingError, 'missing object')
  await s.put(reference.payloadRef, Buffer.from('"tampered"'))
  await t.rejects(codec.decode([encoded]), PayloadStorageError, 'data that does not match the reference\'s SHA-256')
  t.ok(encoded.metadata![REFERENCE_METADATA_KEY], 'references are marked in their metadata')
})

t.test('a store that does not answer is a PayloadStorageError', async (t) => {
  const dead = new PayloadStore({ thresholdBytes: 1024, s3: { bucket: 'b', prefix: '', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', accessKeyId: 'a', secretAccessKey: 'b' } })
  t.teardown(() => { dead.close() })
  await t.rejects(new ClaimCheckCodec(dead).encode([defaultPayloadConverter.toPayload('z'.repeat(5000))]), PayloadStorageError)
})
