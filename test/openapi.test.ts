import t from 'tap'
import { readFileSync } from 'node:fs'
import SwaggerParser from '@apidevtools/swagger-parser'
import { openapiDocument, serialize } from '../openapi/document.js'

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
