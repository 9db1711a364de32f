/**
 * Nothing per replica that must be shared: a run token issued by replica A is valid on replica B
 * (the cluster gives both one secret), a key added to the keys file both read is accepted by both
 * within seconds, and that key's rate budget is one across the replicas (the cluster's Redis):
 * spent on A, B answers 429.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import t from 'tap'
import { generateKey, hashKey } from '../../plugins/app/access/keys.js'
import type { KeyEntry, KeysFile } from '../../schemas/keys-file.js'
import { until } from '../helpers/processes.js'
import { apiUrl, auth, ready, request } from './helpers.js'

const A = apiUrl('api-a')
const B = apiUrl('api-b')

/** Adds a key to the shared keys file, replaced as editors and `flowport keys create` do (rename). */
function addKey (entry: Omit<KeyEntry, 'hash'>): string {
  const file = process.env.FLOWPORT_CLUSTER_KEYS_FILE
  if (!file) throw new Error('FLOWPORT_CLUSTER_KEYS_FILE is not set: run these tests with `npm run test:cluster`')
  const key = generateKey()
  const current = JSON.parse(readFileSync(file, 'utf8')) as KeysFile
  writeFileSync(`${file}.new`, JSON.stringify({ ...current, keys: [...current.keys, { ...entry, hash: hashKey(key) }] }, null, 2))
  renameSync(`${file}.new`, file)
  return key
}

const catalogAs = async (base: string, key: string) => await request(base, 'GET', '/workflow/catalog', undefined, auth(key))

t.before(async () => {
  t.ok(await ready('api-a') && await ready('api-b'), 'both replicas are ready')
})

t.test('a run token issued by replica A opens its run on replica B', async (t) => {
  const started = await request(A, 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'token' } })
  t.equal(started.status, 200, JSON.stringify(started.body))
  const { workflowId } = started.body
  const issued = await request(A, 'POST', '/tokens', { workflowId, scopes: ['read'], ttl: 300 })
  t.equal(issued.status, 200, JSON.stringify(issued.body))
  const onB = await request(B, 'GET', `/workflow/${workflowId}/status`, undefined, auth(issued.body.token))
  t.equal(onB.status, 200, `B takes A's token: ${JSON.stringify(onB.body)}`)
  t.equal((await request(B, 'GET', `/workflow/${workflowId}/status`, undefined, auth(`${issued.body.token}x`))).status, 401, 'and refuses a forged one')
  t.equal((await request(B, 'PATCH', `/workflow/${workflowId}/stop`)).status, 200)
})

t.test('a key added to the shared keys file is accepted by both replicas, and its budget is one across them', async (t) => {
  const budget = 6
  const id = `added-${randomUUID().slice(0, 8)}`
  const key = addKey({ id, scopes: ['read'], rateLimit: budget })
  // A refused request (401) is not counted: only the first accepted one on each replica spends the budget.
  const accepted = async (base: string) => (await catalogAs(base, key)).status === 200
  t.ok(await until(async () => await accepted(A), 120, 250), 'A accepts the new key')
  t.ok(await until(async () => await accepted(B), 120, 250), 'B accepts the new key')

  // Spent on A: two of the budget went to the checks above, one on each replica.
  const onA: number[] = []
  for (let i = 0; i < budget; i++) onA.push((await catalogAs(A, key)).status)
  t.same(onA, [...Array(budget - 2).fill(200), 429, 429], 'A counts the request B took')
  const onB = await catalogAs(B, key)
  t.equal(onB.status, 429, 'B answers 429 for the budget spent on A')
  t.equal(onB.body.error, 'RateLimitedError')
  t.equal((await request(B, 'GET', '/workflow/catalog')).status, 200, 'another key is not affected')
})
