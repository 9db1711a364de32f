/**
 * The trace-log response. The trace document's own schemas (Trace, TraceNode, …) live with the
 * workers that write it (@flowport/core/trace) and are components of the OpenAPI document too.
 */
import { Type, type Static } from '@sinclair/typebox'
import { traceSchemas, type Trace } from '@flowport/core/trace'
import { Nullable, ref } from './common.js'
import { AttentionSchema } from './reset.js'

export { traceSchemas }

export const TraceLogSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String(),
  source: Type.Union([Type.Literal('remote'), Type.Literal('local'), Type.Literal('engine'), Type.Literal('history')], {
    description: '`remote`: read from the bucket; `local`: from SERVICE_TRACE_DIR; `engine`: assembled now from the engine\'s history ' +
      'and the attempts workers recorded (the run is open, or its worker has not written the trace yet); `history`: built from the ' +
      'engine\'s history alone, because no Flowport worker traces the run (a worker of another SDK, its catalog declared in a file or ' +
      'not published): attempts are as the history records them (the last one, and the number and last failure of those before it), ' +
      'and a local activity shows its output without its input'
  }),
  location: Nullable(Type.String({ description: 'The s3:// URI or absolute path read; null for `engine` and `history`' })),
  partial: Type.Boolean({ description: 'True while the run is open: the trace so far; calls still running have status `running`' }),
  attention: Type.Union([ref(AttentionSchema), Type.Null()], {
    description: 'As in the run\'s status: set while the engine keeps retrying the open run\'s failing workflow task (the run does not ' +
      'move until someone fixes the workflow code or resets the run); null otherwise, and always for a closed run'
  }),
  trace: Type.Unsafe<Trace>(Type.Ref('Trace'))
}, { $id: 'TraceLog', additionalProperties: false, description: 'The execution trace of one run and where it was read' })

export type TraceLog = Static<typeof TraceLogSchema>
