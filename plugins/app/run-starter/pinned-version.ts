import { status as GrpcStatus } from '@grpc/grpc-js'
import type { WorkflowStartOptions } from '@temporalio/client'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { validationError } from '../../../lib/api-error.js'
import { grpcCode } from '../engine/index.js'

export function versioningOverrideOf (version: WorkerDeploymentVersion | undefined): Pick<WorkflowStartOptions, 'versioningOverride'> {
  return version === undefined ? {} : { versioningOverride: { pinnedTo: { deploymentName: version.deploymentName, buildId: version.buildId } } }
}

/**
 * A pin to a version no worker of it ever polled the task queue is the engine's FAILED_PRECONDITION
 * ("Pinned version … is not present in task queue …"): the client's 400 at `/version`, not a 500.
 */
export function versionRefused (err: unknown, version: WorkerDeploymentVersion | undefined, catalog: string): unknown {
  if (version === undefined || grpcCode(err) !== GrpcStatus.FAILED_PRECONDITION) return err
  return validationError([{
    path: '/version',
    in: 'body',
    message: `the engine knows no version ${version.deploymentName}:${version.buildId} of catalog ${catalog}: no versioned worker of it has polled this catalog`
  }])
}
