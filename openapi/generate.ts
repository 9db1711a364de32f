/**
 * `npm run openapi`: regenerates the committed openapi/openapi.json and the client's types
 * (client/src/generated/openapi.ts), and the keys file's JSON Schema (docs/keys-file.schema.json);
 * a test fails when any of them is stale.
 */
import { writeFileSync } from 'node:fs'
import { openapiDocument, serialize } from './document.js'
import { clientTypes, clientTypesUrl } from './client-types.js'
import { keysFileSchemaText, keysFileSchemaUrl } from '../schemas/keys-file.js'

const document = await openapiDocument()
const target = new URL('./openapi.json', import.meta.url)
writeFileSync(target, serialize(document))
console.log(`wrote ${target.pathname}`)
writeFileSync(clientTypesUrl, await clientTypes(JSON.parse(serialize(document))))
console.log(`wrote ${clientTypesUrl.pathname}`)
writeFileSync(keysFileSchemaUrl, keysFileSchemaText())
console.log(`wrote ${keysFileSchemaUrl.pathname}`)
