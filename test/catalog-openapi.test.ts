/**
 * The OpenAPI document typed per catalog (GET /workflow/catalog/openapi.json and
 * /workflow/catalog/{catalogId}/openapi.json), read over HTTP from the test stack's API, fed to
 * openapi-typescript, and compiled with tsc: a correct call of `hello` compiles, a wrong input does not.
 * The document follows a republished catalog; `flowport catalog --openapi` prints it.
 */
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import openapiTS, { astToString } from 'openapi-typescript'
import type { OpenAPI3 } from 'openapi-typescript'
import { catalogWorkflowId, type CatalogWorkflow } from '@flowport/core/contract'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { build } from './helpers/app.js'
import { testCatalog } from './helpers/env.js'
import { publishCatalog } from './helpers/poller.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { catalogArgs, flowport, listening } from './helpers/flowport-cli.js'
import { inlineObjects, literalUnions, unusedComponents } from './helpers/openapi-lint.js'
import { compileTypeScript } from './helpers/compile-typescript.js'

const addFormats = addFormatsModule.default
const compile = compileTypeScript

const GOOD = `import type { components, paths } from './catalog-api.js'

type RunBody = paths['/workflow/run']['post']['requestBody']['content']['application/json']
type HelloResult = components['schemas']['hello.WorkflowResult']

export const body: RunBody = { workflowName: 'hello', input: { name: 'Ada' } }
export const byAlias: RunBody = { workflowName: 'hi', input: { name: 'Grace' }, timeout: 5000 }

/** The output is typed: a string greeting, or null for a run that did not complete. */
export function greetingOf (result: HelloResult): string | null {
  return result.output === null ? null : result.output.greeting
}

type Relabel = paths['/workflow/{id}/update/relabel']['post']
export const relabel: NonNullable<Relabel['requestBody']>['content']['application/json'] = { payload: { label: 'x' } }

type StartBody = paths['/workflow/start']['post']['requestBody']['content']['application/json']
export const session: StartBody = { workflowName: 'approval', workflowId: 'cart-7', input: { label: 'a' }, update: { name: 'relabel', payload: { label: 'b' } } }

/** The operations that answer a WorkflowResult answer the workflow's own: \`workflowName\` narrows it, no cast. */
type Ran = paths['/workflow/run']['post']['responses'][200]['content']['application/json']
type Read = paths['/workflow/{id}/result']['get']['responses'][200]['content']['application/json']
type ReadPinned = paths['/workflow/{id}/runs/{rid}/result']['get']['responses'][200]['content']['application/json']
export function greetingOfRun (result: Ran | Read | ReadPinned): string | null {
  if (result.workflowName !== 'hello' || result.output === null) return null
  const greeting: string = result.output.greeting
  return greeting
}

/** A start's 200 is one of three answers; \`kind\` says which, then \`workflowName\` which result. */
type StartAnswer = paths['/workflow/start']['post']['responses'][200]['content']['application/json']
export function greetingOfStart (answer: StartAnswer): string | null {
  if (answer.kind !== 'result' || answer.workflowName !== 'hello' || answer.output === null) return null
  const greeting: string = answer.output.greeting
  return greeting
}
`

const BAD = `import type { paths } from './catalog-api.js'

type RunBody = paths['/workflow/run']['post']['requestBody']['content']['application/json']

export const body: RunBody = { workflowName: 'hello', input: { name: 42 } }

type Ran = paths['/workflow/run']['post']['responses'][200]['content']['application/json']
export function lengthOf (result: Ran): number {
  if (result.workflowName !== 'hello' || result.output === null) return 0
  const greeting: number = result.output.greeting
  return greeting
}
`

t.test('a client generated from the typed document compiles a correct call and refuses a wrong input', async (t) => {
  // The issue asks for the dev stack's document; this is the same one, without starting a dev stack:
  // `flowport dev` runs this app (app.ts) beside a worker that serves the workflow packages under the
  // project (examples/), and the test worker serves those same packages plus test/fixtures/workflows.
  // The document is the app's generic one (equal to the committed openapi/openapi.json whatever the
  // settings: checked below) with the catalog's schemas filled in, so `hello`'s types, the ones
  // compiled here, are the dev stack's; only the extra fixture workflows and the catalog's id and
  // publish time (x-flowport-catalog) differ.
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const generic = await (await fetch(`${base}/openapi.json`)).json()
  t.same(generic, JSON.parse(readFileSync('openapi/openapi.json', 'utf8')), 'the test app\'s generic document is the committed one')
  const res = await fetch(`${base}/workflow/catalog/openapi.json`)
  t.equal(res.status, 200)
  const etag = res.headers.get('etag')
  t.match(etag, /^"[A-Za-z0-9_-]{16}"$/, 'a strong ETag')
  const doc = await res.json() as any
  t.equal(doc.info.version, '1.0.0')
  t.same(doc['x-flowport-catalog'].catalog, testCatalog())
  await SwaggerParser.validate(structuredClone(doc))

  const again = await fetch(`${base}/workflow/catalog/openapi.json`, { headers: { 'if-none-match': etag as string } })
  t.equal(again.status, 304, 'an unchanged document is not sent again')
  t.equal(await again.text(), '')
  t.equal(again.headers.get('etag'), etag)
  const named = await fetch(`${base}/workflow/catalog/${testCatalog()}/openapi.json`, { headers: { 'if-none-match': `W/"other", ${etag as string}` } })
  t.equal(named.status, 304, 'the named catalog\'s document is the same one, and a list of tags is understood')

  const dir = mkdtempSync(join(tmpdir(), 'flowport-catalog-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'catalog-api.ts'), astToString(await openapiTS(doc as OpenAPI3)))
  writeFileSync(join(dir, 'good.ts'), GOOD)
  writeFileSync(join(dir, 'bad.ts'), BAD)
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')

  const good = await compile(dir, 'good.ts')
  t.equal(good.code, 0, `the correct file compiles: ${good.output}`)
  const bad = await compile(dir, 'bad.ts')
  t.not(bad.code, 0, 'the wrong input does not compile')
  t.match(bad.output, /bad\.ts\(5,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/)
  t.match(bad.output, /bad\.ts\(10,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/, 'a typed output: the greeting is no number')
})

t.test('the typed schemas are the catalog\'s, and a real run\'s result matches its typed result', async (t) => {
  const app = await build(t)
  const doc = (await call(t, app, { method: 'GET', url: '/workflow/catalog/openapi.json', route: '/workflow/catalog/openapi.json' })).body
  const catalog = (await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })).body
  const hello = catalog.workflows.find((w: { name: string }) => w.name === 'hello')
  t.same(doc.components.schemas['hello.Input'], hello.inputSchema)
  t.same(doc.components.schemas['hello.Output'], hello.outputSchema)
  t.same(doc.components.schemas.RunWorkflowBody.oneOf.length, catalog.workflows.length, 'one member per workflow')
  t.equal(doc.components.schemas.RunWorkflowBody.discriminator.mapping.hi, '#/components/schemas/hello.RunBody', 'aliases map to their workflow')
  t.ok(doc.paths['/workflow/{id}/signal/approve']?.post, 'a typed operation per handler name')
  t.same(doc.paths['/workflow/{id}/signal/{name}'], (app.swagger() as any).paths['/workflow/{id}/signal/{name}'], 'the generic operations stay')
  // test/fixtures/workflows/faulty: `broken` answers null; `anyOf [null, null]` broke openapi-generator's Go client.
  t.notOk(doc.components.schemas['faulty.query.broken.Result'], 'a handler result that can only be null gets no component')
  t.same(doc.paths['/workflow/{id}/query/broken'].post.responses['200'], (app.swagger() as any).paths['/workflow/{id}/query/{query}'].post.responses['200'],
    'and its typed operation answers the generic result')

  const ajv = new Ajv2020({ strict: false, validateSchema: false })
  addFormats(ajv)
  ajv.addSchema({ ...doc, $id: 'doc' })
  const valid = (name: string, value: unknown) => {
    const validate = ajv.getSchema(`doc#/components/schemas/${name}`)
    return validate?.(value) === true
  }
  t.ok(valid('RunWorkflowBody', { workflowName: 'hello', input: { name: 'Ada' } }))
  t.notOk(valid('RunWorkflowBody', { workflowName: 'hello', input: { name: 5 } }), 'the union refuses what the catalog refuses')
  const withUpdate = (update: unknown) => valid('StartWorkflowBody', { workflowName: 'approval', input: { label: 'a' }, workflowId: 'cart-7', update })
  t.ok(withUpdate({ name: 'relabel', payload: { label: 'b' } }), 'update-with-start names one of the workflow\'s updates')
  t.notOk(withUpdate({ name: 'relabel', payload: { label: 5 } }), 'its payload is typed')
  t.notOk(withUpdate({ name: 'rename', payload: { label: 'b' } }), 'an update the workflow does not declare')
  t.notOk(valid('StartWorkflowBody', { workflowName: 'hello', input: { name: 'Ada' }, update: { name: 'relabel' } }), 'hello declares no update')
  const result = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName: 'hello', input: { name: 'Ada' }, workflowId: newId('hello') } })
  t.equal(result.status, 200)
  t.ok(valid('hello.WorkflowResult', result.body), 'the answer matches hello.WorkflowResult')
  t.equal(result.body.workflowName, 'hello')
  t.same(doc.components.schemas.WorkflowResult.discriminator, {
    propertyName: 'workflowName',
    mapping: Object.fromEntries(catalog.workflows.map((w: { name: string }) => [w.name, `#/components/schemas/${w.name}.WorkflowResult`]))
  }, 'WorkflowResult is the union of the workflows\' results, by canonical name')
  for (const [path, method] of [['/workflow/run', 'post'], ['/workflow/{id}/result', 'get'], ['/workflow/{id}/runs/{rid}/result', 'get']]) {
    t.same(doc.paths[path][method].responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/WorkflowResult' }, `${method} ${path} answers it`)
  }
  t.ok(valid('WorkflowResult', result.body), 'the answer matches the union')
  t.notOk(valid('WorkflowResult', { ...result.body, output: { greeting: 5 } }), 'whose output is typed')
  t.notOk(valid('WorkflowResult', { ...result.body, workflowName: 'hi' }), 'and named by the canonical name')
})

/**
 * The unions of objects a document's answers hold (an `anyOf`/`oneOf` with more than one member that
 * is an object, not a nullable value or a set of strings), each as where it is and whether it has a
 * discriminator; and every one-branch `oneOf` in the document.
 */
function unionsOf (doc: any): { unions: Array<{ at: string, discriminated: boolean }>, oneBranch: string[] } {
  const component = (ref: string) => doc.components.schemas[ref.split('/').pop() as string]
  const isObject = (s: any): boolean => s?.$ref !== undefined ? isObject(component(s.$ref)) : s?.type === 'object' || s?.properties !== undefined || s?.oneOf !== undefined
  const unions = new Map<string, boolean>()
  const seen = new Set<unknown>()
  const walk = (s: any, at: string): void => {
    if (s === null || typeof s !== 'object' || seen.has(s)) return
    seen.add(s)
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/components/schemas/')) walk(component(s.$ref), s.$ref)
    for (const key of ['anyOf', 'oneOf']) {
      if (Array.isArray(s[key]) && s[key].filter(isObject).length > 1) unions.set(`${at} ${key}`, s.discriminator !== undefined && key === 'oneOf')
    }
    for (const [key, value] of Object.entries(s)) if (key !== 'discriminator') walk(value, `${at}/${key}`)
  }
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      for (const [status, answer] of Object.entries<any>(operation.responses ?? {})) walk(answer.content, `${method} ${path} ${status}`)
    }
  }
  const oneBranch: string[] = []
  const find = (s: any, at: string): void => {
    if (s === null || typeof s !== 'object') return
    if (Array.isArray(s.oneOf) && s.oneOf.length === 1) oneBranch.push(at)
    for (const [key, value] of Object.entries(s)) find(value, `${at}/${key}`)
  }
  find(doc, '#')
  return { unions: [...unions].map(([at, discriminated]) => ({ at, discriminated })), oneBranch }
}

t.test('a plain start, a start with Prefer: wait and an update-with-start each match exactly one member of the 200\'s union, the one `kind` names, in both documents', async (t) => {
  const app = await build(t)
  const generic = (await app.inject({ url: '/openapi.json' })).json()
  const typed = (await call(t, app, { method: 'GET', url: '/workflow/catalog/openapi.json', route: '/workflow/catalog/openapi.json' })).body
  const start = (payload: unknown, prefer?: string) => call(t, app, {
    method: 'POST', url: '/workflow/start', route: '/workflow/start', payload, headers: prefer === undefined ? undefined : { prefer }
  })
  const plain = await start({ workflowName: 'hello', input: { name: 'Ada' } })
  const waited = await start({ workflowName: 'hello', input: { name: 'Bo' } }, 'wait=30')
  const workflowId = newId('approval')
  const updated = await start({ workflowName: 'approval', workflowId, input: { label: 'a' }, update: { name: 'relabel', payload: { label: 'b' } } })
  t.teardown(async () => { await app.engine.client.workflow.getHandle(workflowId).terminate('test finished').catch(() => undefined) })
  const answers = { started: plain, result: waited, update: updated }
  for (const [kind, res] of Object.entries(answers)) {
    t.equal(res.status, 200, kind)
    t.equal(res.body.kind, kind, `the ${kind} answer says so`)
  }
  for (const [name, doc] of Object.entries({ '/openapi.json': generic, 'the typed document': typed })) {
    const ajv = new Ajv2020({ strict: false, validateSchema: false })
    addFormats(ajv)
    ajv.addSchema({ ...doc, $id: 'doc' })
    const matches = (ref: string, value: unknown) => ajv.getSchema(`doc${ref}`)?.(value) === true
    const union = doc.paths['/workflow/start'].post.responses['200'].content['application/json'].schema
    const { unions, oneBranch } = unionsOf(doc)
    t.ok(unions.length >= 3, `${name}: the start's answer and the two streams' events are unions`)
    t.same(unions.filter((u) => !u.discriminated), [], `${name}: every union of objects in an answer is a oneOf with a discriminator`)
    t.same(oneBranch, [], `${name}: no one-branch oneOf`)
    t.equal(union.discriminator.propertyName, 'kind', `${name}: discriminated by kind`)
    t.notOk(union.anyOf, `${name}: no anyOf`)
    for (const [kind, res] of Object.entries(answers)) {
      const members = union.oneOf.map((member: { $ref: string }) => member.$ref).filter((ref: string) => matches(ref, res.body))
      t.same(members, [union.discriminator.mapping[kind]], `${name}: the ${kind} answer matches only the member kind names`)
    }
    // In the typed document the result member is itself the union of the workflows' results.
    const results = doc.components.schemas.WorkflowResult.oneOf?.map((member: { $ref: string }) => member.$ref) ?? []
    t.same(results.filter((ref: string) => matches(ref, waited.body)), doc === typed ? ['#/components/schemas/hello.WorkflowResult'] : [],
      `${name}: the waited result matches ${doc === typed ? 'hello\'s result alone' : 'WorkflowResult, not a union'}`)
  }
})

t.test('the typed document is as clean for generators as the generic one: named objects, plain enums, no unused component', async (t) => {
  const app = await build(t)
  const doc = (await call(t, app, { method: 'GET', url: '/workflow/catalog/openapi.json', route: '/workflow/catalog/openapi.json' })).body
  // The catalog's own JSON Schemas are the workflow authors', copied as they are.
  const authors = (name: string) => /\.(Input|Output|Payload|Result)$/.test(name)
  t.same(inlineObjects(doc, authors), [], 'every object the document adds is a component')
  t.same(literalUnions(doc), [], 'no union of one-value enums, the catalog\'s schemas included')
  t.same(unusedComponents(doc), [], 'the generic bodies and results the typed ones replace are gone')
  t.same(doc.components.schemas['approval.StartBody'].properties.update.$ref, '#/components/schemas/approval.update.relabel.WithStart',
    'update-with-start names a component')
  t.same(doc.servers, [{ url: '/', description: 'The host that serves this document' }])
  t.notOk(doc.webhooks)
})

t.test('the document follows the live catalog: a republished catalog with a changed workflow changes its ETag and its schemas', async (t) => {
  const app = await build(t)
  const catalogId = newId('republished')
  const route = '/workflow/catalog/{catalogId}/openapi.json'
  const url = `/workflow/catalog/${catalogId}/openapi.json`
  const served = await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })
  const hello: CatalogWorkflow = served.body.workflows.find((w: CatalogWorkflow) => w.name === 'hello')
  // Published the way a worker publishes it (helpers/poller.ts); a new deploy is a new run of the catalog workflow.
  await publishCatalog(app.engine.client, catalogId, [hello])
  const handle = app.engine.client.workflow.getHandle(catalogWorkflowId(catalogId))
  t.teardown(async () => { await handle.terminate('test finished').catch(() => undefined) })

  const first = await call(t, app, { method: 'GET', url, route })
  t.equal(first.status, 200)
  const before = first.headers.etag as string
  t.match(before, /^"[A-Za-z0-9_-]{16}"$/)
  t.same(first.body.components.schemas['hello.Input'].required, ['name'])
  t.notOk(first.body.components.schemas['hello.Input'].properties.shout, 'not yet in the schema')

  // The next deploy changes hello's input: a required `shout` flag beside `name`.
  const inputSchema = structuredClone(hello.inputSchema) as any
  inputSchema.properties.shout = { type: 'boolean' }
  inputSchema.required = ['name', 'shout']
  await handle.terminate('replaced by a new deploy')
  await publishCatalog(app.engine.client, catalogId, [{ ...hello, inputSchema }])

  const next = await eventually(async () => await call(t, app, { method: 'GET', url, route }), (res) => res.headers.etag !== before)
  t.equal(next.status, 200)
  const after = next.headers.etag as string
  t.not(after, before, 'the ETag changes with the catalog')
  t.match(after, /^"[A-Za-z0-9_-]{16}"$/)
  t.same(next.body.components.schemas['hello.Input'].properties.shout, { type: 'boolean' }, 'the new input schema is in the document')
  t.same(next.body.components.schemas['hello.Input'].required, ['name', 'shout'])

  const stale = await call(t, app, { method: 'GET', url, route, headers: { 'if-none-match': before } })
  t.equal(stale.status, 200, 'the old ETag no longer matches: the new document is sent')
  t.equal(stale.headers.etag, after)
  t.same(stale.body.components.schemas['hello.Input'].required, ['name', 'shout'])
  const fresh = await call(t, app, { method: 'GET', url, route, headers: { 'if-none-match': after } })
  t.equal(fresh.status, 304, 'the new ETag matches until the next deploy')
})

t.test('an unknown catalog is a 404; the static document is unchanged by it all', async (t) => {
  const app = await build(t)
  const missing = await call(t, app, { method: 'GET', url: '/workflow/catalog/no-such-catalog/openapi.json', route: '/workflow/catalog/{catalogId}/openapi.json' })
  t.equal(missing.status, 404)
  t.equal(missing.body.error, 'WorkflowNotFoundError')
  const statics = await app.inject({ url: '/openapi.json' })
  t.equal(statics.json().info.title, 'Flowport API')
  t.notOk(statics.json().components.schemas['hello.Input'])
})

t.test('`flowport catalog --openapi`: the typed document of the default or a named catalog on stdout', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const served = await fetch(`${url}/workflow/catalog/openapi.json`)
  t.equal(served.status, 200)
  const expected = await served.json()
  const named = await flowport(['catalog', '--openapi', ...catalogArgs()], { env })
  t.equal(named.code, 0, named.stderr)
  const doc = JSON.parse(named.stdout)
  t.same(doc, expected, 'the named catalog\'s document, as the API serves it')
  t.match(doc, { 'x-flowport-catalog': { catalog: testCatalog() } })
  t.match(doc.components.schemas['hello.Input'], { properties: { name: { type: 'string' } } }, 'typed per workflow')
  const byDefault = await flowport(['catalog', '--openapi', '--json'], { env })
  t.equal(byDefault.code, 0, byDefault.stderr)
  t.same(JSON.parse(byDefault.stdout), expected, 'without --catalog: the API\'s default catalog (here the same one)')
  const missing = await flowport(['catalog', '--openapi', '--catalog', newId('no-such-catalog')], { env })
  t.equal(missing.code, 2, 'a catalog nobody published')
  t.same(missing.stderr.trim().split('\n').length, 1, 'one line on stderr')
  t.match(missing.stderr, /^WorkflowNotFoundError: Catalog no-such-catalog-.* not found/)
  const both = await flowport(['catalog', 'hello', '--openapi'], { env })
  t.equal(both.code, 2, 'a workflow and --openapi')
  t.same(both.stderr.trim().split('\n').length, 1, 'one line on stderr')
  t.match(both.stderr, /^--openapi prints the whole catalog's document/)
})
