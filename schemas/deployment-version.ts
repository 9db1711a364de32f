/**
 * A worker deployment version on the wire (README, "Changing workflows safely"): the deployment a
 * worker polls as (the catalog unless named) and its build id. `null` where a run or worker is
 * unversioned.
 */
import { Type, type Static } from '@sinclair/typebox'

export const WorkerDeploymentVersionSchema = Type.Object({
  deploymentName: Type.String({ minLength: 1, maxLength: 255, description: 'The worker deployment (SERVICE_WORKER_DEPLOYMENT_NAME; default: the catalog id)', examples: ['default'] }),
  buildId: Type.String({ minLength: 1, maxLength: 255, description: 'The build id within it (SERVICE_WORKER_BUILD_ID; default: a hash of the workflow bundle)', examples: ['3f2a9c01d4e7'] })
}, {
  $id: 'WorkerDeploymentVersion',
  additionalProperties: false,
  description: 'A worker deployment version: the deployment name and build id a versioned worker polls as'
})

export type WorkerDeploymentVersion = Static<typeof WorkerDeploymentVersionSchema>
