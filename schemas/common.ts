/**
 * Schemas shared by every route group: errors, path parameters, the `ref` helper.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** A `$ref` to a named schema that keeps its static type (Type.Ref alone loses it in 0.34). */
export function ref<T extends TSchema> (schema: T) {
  return Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id)))
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const IssueSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value within `in`' }),
  in: Type.Union(['body', 'querystring', 'params', 'headers', 'input', 'payload'].map((v) => Type.Literal(v)), {
    description: 'Which part of the request the path points into (`input`/`payload`: the workflow input or handler payload)'
  }),
  message: Type.String()
}, { $id: 'Issue', additionalProperties: false })

export const ErrorResponseSchema = Type.Object({
  error: Type.String({ description: 'Stable error name, e.g. WorkflowNotFoundError' }),
  message: Type.String(),
  workflowId: Type.Optional(Type.String()),
  runId: Type.Optional(Type.String())
}, { $id: 'ErrorResponse', additionalProperties: false })

export const ValidationErrorSchema = Type.Object({
  error: Type.Literal('ValidationError'),
  message: Type.Literal('Invalid Payload'),
  issues: Type.Array(ref(IssueSchema))
}, { $id: 'ValidationError', additionalProperties: false })

export const WorkflowIdSchema = Type.String({ minLength: 1, maxLength: 1000, description: 'Workflow id' })
export const RunIdSchema = Type.String({ format: 'uuid', description: 'Run id (a UUID)' })
export const NameSchema = Type.String({ minLength: 1, maxLength: 1000 })

export const WorkflowParamsSchema = Type.Object({ id: WorkflowIdSchema }, { $id: 'WorkflowParams' })
export const RunParamsSchema = Type.Object({ id: WorkflowIdSchema, rid: RunIdSchema }, { $id: 'RunParams' })

export type Issue = Static<typeof IssueSchema>
export type ErrorResponse = Static<typeof ErrorResponseSchema>

/** Standard error responses; spread into a route's `response` next to its success schema. */
export const errors = {
  400: ref(ValidationErrorSchema),
  401: ref(ErrorResponseSchema),
  404: ref(ErrorResponseSchema),
  408: ref(ErrorResponseSchema),
  409: ref(ErrorResponseSchema),
  413: ref(ErrorResponseSchema),
  415: ref(ErrorResponseSchema),
  422: ref(ErrorResponseSchema),
  424: ref(ErrorResponseSchema),
  500: ref(ErrorResponseSchema),
  503: ref(ErrorResponseSchema)
} as const

/** Picks the error responses a route can send, e.g. `errorsFor(400, 404, 503)`. */
export function errorsFor<K extends keyof typeof errors> (...codes: K[]): Pick<typeof errors, K> {
  return Object.fromEntries(codes.map((c) => [c, errors[c]])) as Pick<typeof errors, K>
}
