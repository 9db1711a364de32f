/**
 * A worker deployment version on the wire (docs/versioning.md): the deployment a
 * worker polls as (the catalog unless named) and its build id. `null` where a run or worker is
 * unversioned.
 */
import { Type, type Static } from '@sinclair/typebox'
import { NOT_IN_QUERY_TEXT, QueryTextSchema, ruled } from './common.js'

/**
 * The engine's rules for a deployment name, so that a name the schema accepts is one the engine
 * accepts: no `.` or `:` (it joins name and build id with them), no leading `__` (its own), and at
 * most 480 bytes in UTF-8, which 120 characters always fit. The pattern has no lookahead, so that
 * every tool that generates or checks strings from it reads it (the fuzzer's too). Runs are counted
 * by it in visibility queries: no character a query value may not hold (schemas/common.ts).
 */
const N = NOT_IN_QUERY_TEXT
export const DEPLOYMENT_NAME = {
  minLength: 1,
  maxLength: 120,
  pattern: ruled(`^(?:[^_.:${N}]|_[^_.:${N}]|_$)[^.:${N}]*$`, 'must hold no `.` or `:` and no control character, and not start with `__`')
}

export const WorkerDeploymentVersionSchema = Type.Object({
  deploymentName: Type.String({
    ...DEPLOYMENT_NAME,
    description: 'The worker deployment (SERVICE_WORKER_DEPLOYMENT_NAME; default: the catalog id): no `.` or `:`, not starting with `__`',
    examples: ['default']
  }),
  buildId: Type.String({ ...QueryTextSchema, maxLength: 255, description: 'The build id within it (SERVICE_WORKER_BUILD_ID; default: a hash of the workflow bundle)', examples: ['3f2a9c01d4e7'] })
}, {
  $id: 'WorkerDeploymentVersion',
  additionalProperties: false,
  description: 'A worker deployment version: the deployment name and build id a versioned worker polls as'
})

export type WorkerDeploymentVersion = Static<typeof WorkerDeploymentVersionSchema>
