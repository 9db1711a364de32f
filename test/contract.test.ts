import t from 'tap'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'

t.test('foundation responses match the committed OpenAPI document', async (t) => {
  const app = await build(t)
  assertContract(t, 'GET', '/health', await app.inject({ method: 'GET', url: '/health' }))
  assertContract(t, 'GET', '/ready', await app.inject({ method: 'GET', url: '/ready' }))
  assertContract(t, 'GET', '/workflow/catalog', await app.inject({ method: 'GET', url: '/workflow/catalog' }))
  assertContract(t, 'GET', '/workflow/catalog/{catalogId}', await app.inject({ method: 'GET', url: '/workflow/catalog/nope' }))
  assertContract(t, 'GET', '/workflow/catalog/{catalogId}', await app.inject({ method: 'GET', url: `/workflow/catalog/${'x'.repeat(300)}` }))
})

t.test('the checker itself rejects a body that breaks the schema', async (t) => {
  // A recording stand-in for `t`, so the checker's verdicts can be asserted here.
  const results: boolean[] = []
  const fake = { ok: (v: unknown) => { results.push(Boolean(v)); return Boolean(v) }, fail: () => { results.push(false) }, equal: () => true } as unknown as Parameters<typeof assertContract>[0]
  assertContract(fake, 'GET', '/health', { statusCode: 200, body: JSON.stringify({ status: 'broken' }) })
  t.same(results, [true, false], 'status declared, body rejected')
  results.length = 0
  assertContract(fake, 'GET', '/health', { statusCode: 418, body: '{}' })
  t.same(results, [false], 'an undeclared status is rejected')
})
