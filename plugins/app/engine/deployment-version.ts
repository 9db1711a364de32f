import type { temporal } from '@temporalio/proto'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'

/** Null for the engine's "unversioned" (no version, or an empty build id). */
export function versionOf (v: temporal.api.deployment.v1.IWorkerDeploymentVersion | null | undefined): WorkerDeploymentVersion | null {
  return v?.deploymentName && v.buildId ? { deploymentName: v.deploymentName, buildId: v.buildId } : null
}

export const versionValue = (v: WorkerDeploymentVersion) => `${v.deploymentName}:${v.buildId}`

/** The deployment name may hold a `:`, so the value is matched against the name read on its own. */
export function versionOfValue (deploymentName: string | undefined, value: string | undefined): WorkerDeploymentVersion | null {
  if (!deploymentName || !value?.startsWith(`${deploymentName}:`)) return null
  const buildId = value.slice(deploymentName.length + 1)
  return buildId ? { deploymentName, buildId } : null
}
