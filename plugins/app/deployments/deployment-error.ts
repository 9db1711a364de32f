/**
 * The engine's answers to the worker deployment APIs as API errors. The engine's generic mapping
 * (../engine/errors.ts) would call a NOT_FOUND a missing workflow; here it is a deployment or a
 * version, and every refusal of a change is a 409 carrying the engine's own reason (already
 * current, no pollers, a concurrent change), never a 500.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { ApiError, validationError } from '../../../lib/api-error.js'
import { grpcFailure } from '../engine/index.js'

export const deploymentNotFound = (deploymentName: string) =>
  new ApiError(404, 'DeploymentNotFoundError', `Worker deployment ${deploymentName} not found: no worker of it has polled the engine`)

export const versionNotFound = (deploymentName: string, buildId: string) =>
  new ApiError(404, 'DeploymentVersionNotFoundError', `Worker deployment ${deploymentName} has no version ${buildId}: no worker with this build id has polled the engine`)

export const deploymentConflict = (message: string) => new ApiError(409, 'DeploymentConflictError', message)

export const deploymentChanged = (deploymentName: string) => new ApiError(412, 'PreconditionFailedError',
  `Worker deployment ${deploymentName} was changed since that ETag was served: nothing was changed now; read it again (GET /deployments/${deploymentName}) and decide`)

/** An ApiError for the engine's refusal of a deployment call; anything else is rethrown for the engine's own mapping. */
export function deploymentError (err: unknown, target: { deploymentName: string, buildId?: string }): never {
  const grpc = grpcFailure(err)
  switch (grpc?.code) {
    case GrpcStatus.NOT_FOUND:
      // Changes describe the deployment first, so a NOT_FOUND naming a build id is about the version.
      throw target.buildId === undefined ? deploymentNotFound(target.deploymentName) : versionNotFound(target.deploymentName, target.buildId)
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      throw deploymentConflict(`The engine refused the change of worker deployment ${target.deploymentName}: ${grpc.details}`)
  }
  throw err
}

/**
 * The same for the describe every route starts with: there, an INVALID_ARGUMENT can only be about
 * the name. The route's schema holds the engine's rules (schemas/deployment-version.ts); an engine
 * with other limits still answers the client's 400 at the path parameter, with its reason.
 */
export function describeError (err: unknown, deploymentName: string): never {
  const grpc = grpcFailure(err)
  if (grpc?.code === GrpcStatus.INVALID_ARGUMENT) throw validationError([{ path: '/deploymentName', in: 'params', message: `is not a worker deployment name the engine accepts: ${grpc.details}` }])
  return deploymentError(err, { deploymentName })
}
