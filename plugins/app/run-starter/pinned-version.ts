/**
 * A start's `version`: the run is pinned to that worker deployment version by the engine's
 * versioning override, whatever version is current (docs/versioning.md).
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import type { WorkflowStartOptions } from '@temporalio/client'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { validationError } from '../../../lib/api-error.js'
import { grpcCode } from '../engine/index.js'

export function versioningOverrideOf (version: WorkerDeploymentVersion | undefined): Pick<WorkflowStartOptions, 'versioningOverride'> {
  return version === undefined ? {} : { versioningOverride: { pinnedTo: { deploymentName: version.deploymentName, buildId: version.buildId } } }
}

/**
 * The engine refuses a pin to a version no worker of it ever polled the catalog's task queue with
 * FAILED_PRECONDITION ("Pinned version … is not present in task queue …"): the client named a
 * version that is not there, a 400 at `/version` rather than a 500. Other failures pass unchanged.
 */
export function versionRefused (err: unknown, version: WorkerDeploymentVersion | undefined, catalog: string): unknown {
  if (version === undefined || grpcCode(err) !== GrpcStatus.FAILED_PRECONDITION) return err
  return validationError([{
    path: '/version',
    in: 'body',
    message: `the engine knows no version ${version.deploymentName}:${version.buildId} of catalog ${catalog}: no versioned worker of it has polled this catalog`
  }])
}
