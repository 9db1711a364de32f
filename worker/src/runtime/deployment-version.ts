/**
 * The worker deployment version a worker polls as (README, "Changing workflows safely"): the
 * deployment is the catalog unless named, the build id the workflow bundle's content hash unless
 * given, so that restarting or scaling out identical code joins the same version, and changed
 * workflow code is a new one.
 */
import { createHash } from 'node:crypto'
import type { WorkerDeploymentVersion } from '@temporalio/common'

export function deploymentVersion (
  options: { catalogId: string, versioning?: { deploymentName?: string, buildId?: string } | null },
  workflowBundle: { code: string }
): WorkerDeploymentVersion | null {
  if (options.versioning == null) return null
  return {
    deploymentName: options.versioning.deploymentName ?? options.catalogId,
    buildId: options.versioning.buildId ?? createHash('sha256').update(workflowBundle.code).digest('hex').slice(0, 12)
  }
}
