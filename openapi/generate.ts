/**
 * `npm run openapi`: regenerates the committed openapi/openapi.json (a test fails when it is stale).
 */
import { writeFileSync } from 'node:fs'
import { openapiDocument, serialize } from './document.js'

const target = new URL('./openapi.json', import.meta.url)
writeFileSync(target, serialize(await openapiDocument()))
console.log(`wrote ${target.pathname}`)
