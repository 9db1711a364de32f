/**
 * The trace-log response. The trace document's own schemas (Trace, TraceNode, …) live with the
 * workers that write it (@flowport/worker/trace) and are components of the OpenAPI document too.
 */
import { Type, type Static } from '@sinclair/typebox'
import { traceSchemas, type Trace } from '@flowport/worker/trace'
import { Nullable } from './common.js'

export { traceSchemas }

export const TraceLogSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String(),
  source: Type.Union([Type.Literal('remote'), Type.Literal('local'), Type.Literal('engine')], {
    description: '`remote`: read from the bucket; `local`: from SERVICE_TRACE_DIR; `engine`: assembled now from the engine\'s history ' +
      '(the run is open, or its worker has not written the trace yet)'
  }),
  location: Nullable(Type.String({ description: 'The s3:// URI or absolute path read; null for `engine`' })),
  partial: Type.Boolean({ description: 'True while the run is open: the trace so far; calls still running have status `running`' }),
  trace: Type.Unsafe<Trace>(Type.Ref('Trace'))
}, { $id: 'TraceLog', additionalProperties: false, description: 'The execution trace of one run and where it was read' })

export type TraceLog = Static<typeof TraceLogSchema>
