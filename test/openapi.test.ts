import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { openapiDocument, serialize } from '../openapi/document.js'
import { ERROR_NAMES } from '../schemas/common.js'
import { inlineObjects, literalUnions, unusedComponents } from './helpers/openapi-lint.js'

const addFormats = addFormatsModule.default

const committedPath = new URL('../openapi/openapi.json', import.meta.url)

t.test('the committed openapi/openapi.json is up to date (run `npm run openapi`)', async (t) => {
  const generated = serialize(await openapiDocument())
  t.equal(readFileSync(committedPath, 'utf8'), generated)
})

t.test('the document is valid OpenAPI 3 with version 1.0.0 and a security scheme', async (t) => {
  const doc = await openapiDocument() as any
  // validate() dereferences in place: give it a copy.
  await SwaggerParser.validate(structuredClone(doc))
  t.match(doc.openapi, /^3\./)
  t.equal(doc.info.version, '1.0.0')
  t.ok(doc.components.securitySchemes.bearerAuth)
  t.ok(doc.components.schemas.ErrorResponse, 'shared schemas are components named by $id')
  t.ok(doc.components.schemas.ValidationError)
  t.same(doc.paths['/health'].get.security, [], 'health is declared open')
})

t.test('every operation has an id, a tag, a summary and declares its error responses', async (t) => {
  const doc = await openapiDocument() as any
  const ids = new Set<string>()
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`
      t.ok(op.operationId, `${where} has an operationId`)
      t.notOk(ids.has(op.operationId), `${where} operationId is unique`)
      ids.add(op.operationId)
      t.ok(op.tags?.length, `${where} has a tag`)
      t.ok(op.summary, `${where} has a summary`)
      const codes = Object.keys(op.responses)
      t.ok(codes.some((c) => c.startsWith('2')), `${where} declares a success response`)
      if (op.security?.length !== 0) t.ok(codes.includes('401'), `${where} declares 401`)
    }
  }
})

t.test('every response has a real description; no "Default Response" is left', async (t) => {
  const doc = await openapiDocument() as any
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        t.ok(typeof response.description === 'string' && response.description.length > 10 && response.description !== 'Default Response',
          `${method.toUpperCase()} ${path} ${status}: ${response.description}`)
      }
    }
  }
  t.notMatch(JSON.stringify(doc), /Default Response/)
})

t.test('the ErrorResponse `error` enum is exactly the names the API can send', async (t) => {
  const doc = await openapiDocument() as any
  t.same(doc.components.schemas.ErrorResponse.properties.error.enum, [...ERROR_NAMES])
  // Every error name written in the code that answers requests is in the list, and every listed name is sent somewhere.
  const sent = new Set<string>()
  for (const dir of ['lib', 'plugins', 'routes']) {
    for (const file of readdirSync(new URL(`../${dir}/`, import.meta.url), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue
      const source = readFileSync(new URL(`../${dir}/${file}`, import.meta.url), 'utf8')
      for (const [, name] of source.matchAll(/'([A-Z][A-Za-z]+Error)'/g)) sent.add(name)
    }
  }
  t.same([...sent].filter((name) => !(ERROR_NAMES as readonly string[]).includes(name)), [], 'no name outside the enum')
  t.same(ERROR_NAMES.filter((name) => !sent.has(name)), [], 'no name in the enum that nothing sends')
})

t.test('shared objects are named components, not inline copies', async (t) => {
  const doc = await openapiDocument() as any
  const { schemas } = doc.components
  t.same(schemas.CatalogWorkflow.properties.source, { $ref: '#/components/schemas/CatalogWorkflowSource' })
  t.same(schemas.TraceInfo.properties.destinations, { $ref: '#/components/schemas/TraceDestinations' })
  t.same(schemas.Catalog.properties.workers, { $ref: '#/components/schemas/CatalogWorkers' })
})

t.test('every request body carries an example that its own schema accepts', async (t) => {
  const doc = await openapiDocument() as any
  const ajv = new Ajv2020({ strict: false, validateSchema: false })
  addFormats(ajv)
  ajv.addSchema({ ...doc, $id: 'doc' })
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema
      if (!schema) continue
      const name = String(schema.$ref).split('/').pop() as string
      const examples = doc.components.schemas[name]?.examples
      if (!t.ok(Array.isArray(examples) && examples.length > 0, `${method.toUpperCase()} ${path}: ${name} has an example`)) continue
      const validate = ajv.getSchema(`doc#/components/schemas/${name}`)
      t.ok(validate?.(examples[0]), `${method.toUpperCase()} ${path}: the example matches ${name}`)
    }
  }
})

t.test('a start with Prefer: wait declares the headers it answers with', async (t) => {
  const doc = await openapiDocument() as any
  const responses = doc.paths['/workflow/start'].post.responses
  t.same(Object.keys(responses['202'].headers).sort(), ['location', 'preference-applied', 'retry-after'], '202: where and when to look')
  t.equal(responses['202'].headers['retry-after'].schema.type, 'integer')
  t.same(Object.keys(responses['200'].headers), ['preference-applied'], '200: the wait applied')
  for (const [status, response] of Object.entries<any>({ 200: responses['200'], 202: responses['202'] })) {
    for (const [name, header] of Object.entries<any>(response.headers)) t.ok(header.description, `${status} ${name} is described`)
  }
})

t.test('generators name every object: no inline object schema inside a component, no union of one-value enums, no unused component', async (t) => {
  const doc = await openapiDocument() as any
  t.same(inlineObjects(doc), [], 'every object in a component is a component of its own (a $ref) or has a title')
  t.same(literalUnions(doc), [], 'a set of strings is one enum')
  t.same(unusedComponents(doc), [], 'every component is reached from an operation')
  const { schemas } = doc.components
  t.same(schemas.Schedule.properties.policies, { $ref: '#/components/schemas/ScheduleAppliedPolicies' }, 'not an inline object a generator would call SchedulePolicies')
  t.same(schemas.Trace.properties.version, { type: 'integer', enum: [1] }, 'the trace version is an integer')
  t.same(schemas.RunTokenRequest.properties.scopes.items, { $ref: '#/components/schemas/RunTokenScope' })
  t.match(schemas.RunTokenScope, { type: 'string', enum: ['read', 'interact', 'control'] }, 'a named enum')
  t.notOk(schemas.RunTokenScope.anyOf)
  t.same(schemas.EvalVerdict.enum, ['pass', 'partial', 'fail'], 'unions of literals written in TypeBox become one enum in the document')
})

t.test('the completion webhook is a callback of the operations that take `webhook`, not a path a client would call', async (t) => {
  const doc = await openapiDocument() as any
  t.notOk(doc.webhooks, 'no top-level webhooks: openapi-generator made a Go client method of it')
  for (const path of ['/workflow/start', '/workflow/run']) {
    // In place, not a $ref to components/callbacks: openapi-python-client refuses that (test/client-conformance-python.test.ts).
    const callback = doc.paths[path].post.callbacks.workflowCompleted['{$request.body#/webhook/url}'].post
    t.equal(callback.operationId, `${doc.paths[path].post.operationId}Completed`, `${path}: an operationId of its own (generators warn without one, and refuse one twice)`)
    t.same(callback.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/WorkflowResult' }, path)
  }
  t.notOk(doc.components.callbacks, 'no callback component')
})

t.test('the headers a client must read on 401, 429 and 503 are declared, as referenced components; a relative server', async (t) => {
  const doc = await openapiDocument() as any
  const expected: Record<string, string[]> = {
    401: ['WWW-Authenticate'],
    429: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
    503: ['Retry-After']
  }
  let seen = 0
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const [status, names] of Object.entries(expected)) {
        const answer = op.responses[status]
        if (answer === undefined) continue
        seen++
        for (const name of names) t.same(answer.headers?.[name], { $ref: `#/components/headers/${name}` }, `${method.toUpperCase()} ${path} ${status} declares ${name}`)
      }
    }
  }
  t.ok(seen > 100, 'most operations answer them')
  for (const name of Object.values(expected).flat()) t.ok(doc.components.headers[name].description && doc.components.headers[name].schema, `${name} is described`)
  t.same(doc.servers, [{ url: '/', description: 'The host that serves this document' }], 'resolved against where the document was fetched')
})

t.test('the examples are what they claim: the upload URL of PayloadUpload is a URI', async (t) => {
  const doc = await openapiDocument() as any
  const [example] = doc.components.schemas.PayloadUpload.examples
  t.match(example.uploadUrl, /^[\x21-\x7e]+$/, 'printable ASCII only (RFC 3986)')
  t.equal(new URL(example.uploadUrl).protocol, 'https:')
})
