import { Type, type Static } from '@sinclair/typebox'

export const HealthSchema = Type.Object({
  status: Type.Literal('ok')
}, { $id: 'Health', additionalProperties: false })

export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  engine: Type.Boolean({ description: 'The Temporal frontend answered' }),
  catalog: Type.Boolean({ description: 'The default catalog is published' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the API is not ready; null when ready' })
}, { $id: 'Readiness', additionalProperties: false })

export type Readiness = Static<typeof ReadinessSchema>
