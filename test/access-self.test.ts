/**
 * GET /access: a credential's own key, scopes and limits (what the inspector reads to disable the
 * changes a key may not make), with auth on and off; a run token is refused (it opens only its
 * workflow id's routes), a key without `read` too.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'

t.test('each key is told its own scopes and limits', async (t) => {
  const { keys, file } = keysFile(t, [
    { id: 'operator', scopes: ['read', 'control', 'admin'] },
    { id: 'dashboard', scopes: ['read'], catalogs: ['main'], workflows: ['invoice-*'] },
    { id: 'starter', scopes: ['run'] }
  ])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file, SERVICE_RUN_TOKEN_SECRETS: 'access-self-secret-0123456789abcdef' })
  const get = async (key: string) => await app.inject({ method: 'GET', url: '/access', headers: bearer(key) })

  const operator = await get(keys.operator!)
  t.equal(operator.statusCode, 200)
  t.same(operator.json(), { auth: true, keyId: 'operator', kind: 'key', scopes: ['read', 'control', 'admin'], catalogs: null, workflows: null })
  t.same((await get(keys.dashboard!)).json(), { auth: true, keyId: 'dashboard', kind: 'key', scopes: ['read'], catalogs: ['main'], workflows: ['invoice-*'] }, 'a limited key: its limits')
  t.same((await get(keys.starter!)).json(), { error: 'ForbiddenError', message: 'Key starter lacks scope read' }, 'scope read')
  t.equal((await app.inject({ method: 'GET', url: '/access' })).statusCode, 401, 'no credential: 401')

  const issued = await app.inject({ method: 'POST', url: '/tokens', headers: bearer(keys.operator!), payload: { workflowId: 'some-run', scopes: ['read'], ttl: 60 } })
  const token = await get(issued.json().token as string)
  t.equal(token.statusCode, 403, 'a run token: 403')
  t.match(token.json(), { error: 'ForbiddenError', message: /only opens the routes of workflow some-run/ })
})

t.test('with auth off: every scope, no key', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/access' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { auth: false, keyId: null, kind: null, scopes: ['read', 'run', 'interact', 'control', 'admin'], catalogs: null, workflows: null })
})
