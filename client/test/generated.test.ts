/** The committed client types are what `npm run openapi` generates from the current API. */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { openapiDocument, serialize } from '../../openapi/document.js'
import { clientTypes, clientTypesUrl } from '../../openapi/client-types.js'

t.test('client/src/generated/openapi.ts is up to date (run `npm run openapi`)', async (t) => {
  const generated = await clientTypes(JSON.parse(serialize(await openapiDocument())))
  t.equal(readFileSync(clientTypesUrl, 'utf8'), generated)
})
