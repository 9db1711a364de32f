/**
 * A worker deployment version on the wire (README, "Changing workflows safely"): the deployment a
 * worker runs under and its build id. Where a run or worker is unversioned, the field is null.
 */
import { Type, type Static } from '@sinclair/typebox'

export const WorkerDeploymentVersionSchema = Type.Object({
  deploymentName: Type.String({ description: 'The worker deployment (default: the catalog id)' }),
  buildId: Type.String({ description: 'The build id (default: derived from the workflow bundle\'s content)' })
}, { $id: 'WorkerDeploymentVersion', additionalProperties: false, description: 'A worker deployment version: deployment name and build id' })

export type WorkerDeploymentVersion = Static<typeof WorkerDeploymentVersionSchema>
