import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { ruled } from '../../../schemas/common.js'

/** RFC 9110 §13.1.1: anything else is a 400, not a 412, as it cannot have come from an `ETag` this API sent. */
const ENTITY_TAG = '(W/)?"[\\x21\\x23-\\x7e]*"'
export const IF_MATCH_PATTERN = ruled(`^(\\*|${ENTITY_TAG}([ \\t]*,[ \\t]*${ENTITY_TAG})*)$`,
  'must be `*` or entity tags (`"…"`, comma-separated), as an `ETag` of this API is')

const ifNoneMatch = Type.String({
  maxLength: 8192,
  description: 'ETags of representations the client holds (`"…"`, comma-separated, or `*`): when one matches the current ' +
    'representation the answer is 304 with no body. Weak tags (`W/"…"`) match as their strong form.',
  examples: ['"0198a9f2-6c1e-7f3a-9d2b-5e8c4a1b7d60.k3Xb0Q9aP1c"']
})

export const IF_MATCH_DESCRIPTION = 'The run the caller saw: its status `ETag` (`"<runId>.<hash>"`) or `"<runId>"`, ' +
  'comma-separated for several, or `*` (any run). When the run the request would act on (the latest run of the workflow id, ' +
  'or the pinned run) is not one of them, the answer is 412 PreconditionFailedError and nothing is sent to the engine. ' +
  'Only the run is compared: a status that changed within the same run still matches.'

// Swagger UI fills every parameter's example into "Try it out": a made-up run id there would make
// each example signal, stop or reset a 412. `*` (any run) lets them work unedited.
const ifMatch = Type.String({ maxLength: 8192, pattern: IF_MATCH_PATTERN, description: IF_MATCH_DESCRIPTION, examples: ['*'] })

export const ConditionalReadHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(ifNoneMatch)
}, { $id: 'ConditionalReadHeaders' })

export const RunPreconditionHeadersSchema = Type.Object({
  'if-match': Type.Optional(ifMatch)
}, { $id: 'RunPreconditionHeaders' })

export const etagHeader = {
  etag: {
    type: 'string',
    description: 'Strong validator of this representation; send it back in `If-None-Match` (304 when unchanged). ' +
      'A status ETag is `"<runId>.<hash>"` and also serves as `If-Match` of the calls that act on the run.'
  }
} as const

export const notModified = Type.Unsafe<undefined>({
  type: 'null',
  description: 'Not Modified: `If-None-Match` named the current representation; no body',
  headers: etagHeader
})

export { ifMatch as IfMatchSchema, ifNoneMatch as IfNoneMatchSchema }

export function withEtag<T extends TSchema> (schema: T, description: string) {
  return Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id), { description, headers: etagHeader }))
}
