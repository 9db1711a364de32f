/**
 * The committed client types are what `npm run openapi` generates from the current API, and the
 * client's default address is the API's default port.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { openapiDocument, serialize } from '../../openapi/document.js'
import { clientTypes, clientTypesUrl } from '../../openapi/client-types.js'
import { DEFAULT_PORT } from '@flowport/core/api'
import { DEFAULT_BASE_URL } from '../src/client.js'

t.test('client/src/generated/openapi.ts is up to date (run `npm run openapi`)', async (t) => {
  const generated = await clientTypes(JSON.parse(serialize(await openapiDocument())))
  t.equal(readFileSync(clientTypesUrl, 'utf8'), generated)
})

// The client carries no dependency on @flowport/core (its I/O parts' packages would come with it): its one restated constant is held to core's here.
t.test('the client\'s default base URL is on the API\'s default port', async (t) => {
  t.equal(new URL(DEFAULT_BASE_URL).port, String(DEFAULT_PORT))
})
