/**
 * How the engine names a worker deployment version, in one place for the concepts that read it:
 * its proto message (a run's versioning info, a deployment's routing and summaries) and the
 * `<deploymentName>:<buildId>` value of the `TemporalWorkerDeploymentVersion` search attribute.
 */
import type { temporal } from '@temporalio/proto'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'

/** A version as the wire names it; null for the engine's "unversioned" (no version, or an empty build id). */
export function versionOf (v: temporal.api.deployment.v1.IWorkerDeploymentVersion | null | undefined): WorkerDeploymentVersion | null {
  return v?.deploymentName && v.buildId ? { deploymentName: v.deploymentName, buildId: v.buildId } : null
}

/** The search attribute's value of a version. */
export const versionValue = (v: WorkerDeploymentVersion) => `${v.deploymentName}:${v.buildId}`

/**
 * A version from the search attribute's value, given the deployment name read on its own (the
 * `TemporalWorkerDeployment` attribute): the name may hold a `:` too, so the value is not split.
 */
export function versionOfValue (deploymentName: string | undefined, value: string | undefined): WorkerDeploymentVersion | null {
  if (!deploymentName || !value?.startsWith(`${deploymentName}:`)) return null
  const buildId = value.slice(deploymentName.length + 1)
  return buildId ? { deploymentName, buildId } : null
}
