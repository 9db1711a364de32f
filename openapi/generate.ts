/**
 * `npm run openapi`: regenerates the committed openapi/openapi.json and the client's types
 * (client/src/generated/openapi.ts); a test fails when either is stale.
 */
import { writeFileSync } from 'node:fs'
import { openapiDocument, serialize } from './document.js'
import { clientTypes, clientTypesUrl } from './client-types.js'

const document = await openapiDocument()
const target = new URL('./openapi.json', import.meta.url)
writeFileSync(target, serialize(document))
console.log(`wrote ${target.pathname}`)
writeFileSync(clientTypesUrl, await clientTypes(JSON.parse(serialize(document))))
console.log(`wrote ${clientTypesUrl.pathname}`)
