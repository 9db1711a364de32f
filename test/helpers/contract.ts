/**
 * Checks a response against the committed openapi/openapi.json: the status must be declared for
 * that operation and the body must match the declared schema. What generated clients rely on.
 */
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { Test } from 'tap'

const addFormats = addFormatsModule.default
const DOC_ID = 'flowport-openapi'
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'))

const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false })
addFormats(ajv)
ajv.addSchema({ ...doc, $id: DOC_ID })

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')

export interface ResponseLike {
  statusCode: number
  body: string
  headers?: Record<string, unknown>
}

/** `routePath` is the OpenAPI template, e.g. `/workflow/{id}/status`. */
export function assertContract (t: Test, method: string, routePath: string, res: ResponseLike): void {
  const where = `${method.toUpperCase()} ${routePath} → ${res.statusCode}`
  const operation = doc.paths?.[routePath]?.[method.toLowerCase()]
  if (!operation) {
    t.fail(`${where}: operation is not in openapi.json`)
    return
  }
  const status = String(res.statusCode)
  const declared = operation.responses?.[status]
  if (!t.ok(declared, `${where}: status is declared`)) return
  const mediaTypes = Object.keys(declared.content ?? {})
  if (mediaTypes.length === 0) {
    t.equal(res.body, '', `${where}: no body declared, none sent`)
    return
  }
  const jsonType = mediaTypes.find((m) => m.includes('json'))
  if (!jsonType) {
    t.ok(mediaTypes.length > 0, `${where}: non-JSON body (${mediaTypes.join(', ')})`)
    return
  }
  const pointer = ['paths', routePath, method.toLowerCase(), 'responses', status, 'content', jsonType, 'schema'].map(escape).join('/')
  const validate = ajv.getSchema(`${DOC_ID}#/${pointer}`)
  if (!validate) {
    t.fail(`${where}: no schema at ${pointer}`)
    return
  }
  const body = res.body === '' ? undefined : JSON.parse(res.body)
  const valid = validate(body) as boolean
  t.ok(valid, `${where}: body matches the schema`, valid ? {} : { errors: validate.errors, body })
}
