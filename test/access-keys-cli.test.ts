/**
 * `flowport keys`: a new key is printed once and only its hash is stored; a running API takes it
 * without a restart and refuses it once removed; mistakes are one line and exit 1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { parse } from 'yaml'
import { build } from './helpers/app.js'
import { flowport } from './helpers/flowport-cli.js'
import { bearer } from './helpers/keys.js'
import { until } from './helpers/processes.js'
import { hashKey } from '../plugins/app/access/keys.js'

t.test('create, list and remove keys; the running API follows the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-keys-cli-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'keys.yaml')
  const env = { SERVICE_API_KEYS_FILE: file }

  const created = await flowport(['keys', 'create', '--id', 'ci', '--scopes', 'run,read', '--catalog', 'main', '--workflow', 'invoice-*'], { env })
  t.equal(created.code, 0)
  const key = created.stdout.trim()
  t.match(key, /^fpk_[\w-]{43}$/, 'the key, alone on stdout')
  const text = readFileSync(file, 'utf8')
  t.notOk(text.includes(key), 'the file never holds the key')
  t.same(parse(text), { keys: [{ id: 'ci', hash: hashKey(key), scopes: ['run', 'read'], catalogs: ['main'], workflows: ['invoice-*'] }] })

  const app = await build(t, env)
  const status = async (k: string) => (await app.inject({ method: 'GET', url: '/workflow/catalog/main', headers: bearer(k) })).statusCode
  t.not(await status(key), 401, 'the API takes the key')
  const second = await flowport(['keys', 'create', '--id', 'dash', '--scopes', 'read', '--file', file])
  t.equal(second.code, 0)
  t.ok(await until(async () => await status(second.stdout.trim()) !== 401, 100, 50), 'a key created while the API runs is taken without a restart')

  const listed = await flowport(['keys', 'list'], { env })
  t.equal(listed.stdout, 'ci\trun,read\tcatalogs main\tworkflows invoice-*\ndash\tread\n')

  for (const [args, message] of [
    [['create', '--id', 'ci', '--scopes', 'read'], /^Key ci exists already/],
    [['create', '--id', 'x', '--scopes', 'read,everything'], /^Unknown scope everything/],
    [['remove', '--id', 'nobody'], /^No key nobody/]
  ] as const) {
    const res = await flowport(['keys', ...args], { env })
    t.equal(res.code, 1, args.join(' '))
    t.match(res.stderr, message)
    t.equal(res.stderr.trim().split('\n').length, 1, 'one line, no stack')
  }

  t.equal((await flowport(['keys', 'remove', '--id', 'ci'], { env })).code, 0)
  t.ok(await until(async () => await status(key) === 401, 100, 50), 'removed: refused, without a restart')
  t.not(await status(second.stdout.trim()), 401, 'the other key stays valid')
})

t.test('create and remove keep the run-token secrets of a JSON file, and list never shows them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-keys-cli-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'keys.json')
  const runTokenSecrets = ['run-token-secret-a-0123456789abcdef', 'run-token-secret-b-0123456789abcdef']
  writeFileSync(file, JSON.stringify({ keys: [], runTokenSecrets }))
  t.equal((await flowport(['keys', 'create', '--id', 'ci', '--scopes', 'read', '--file', file])).code, 0)
  t.same(JSON.parse(readFileSync(file, 'utf8')).runTokenSecrets, runTokenSecrets, 'kept by create')
  const listed = await flowport(['keys', 'list', '--file', file])
  t.equal(listed.stdout, 'ci\tread\n', 'list shows the keys only')
  t.equal((await flowport(['keys', 'remove', '--id', 'ci', '--file', file])).code, 0)
  t.same(JSON.parse(readFileSync(file, 'utf8')), { keys: [], runTokenSecrets }, 'kept by remove')
})
