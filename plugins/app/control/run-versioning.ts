/**
 * The engine's versioning override wins over what the run's workers report until removed; typical
 * use: moving a run off a version whose workers are gone (docs/deploys.md).
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import protoRoot, { type temporal } from '@temporalio/proto'
import { ApiError, validationError } from '../../../lib/api-error.js'
import type { RunVersioning, RunVersioningBody } from '../../../schemas/run-versioning.js'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { closedMeanwhile, overrideOf, versionValue, grpcCode, POLLER_RECENT_MS } from '../engine/index.js'
import type { RunRef } from '@flowport/core/run'
import { openRun, type ControlCall } from './stop.js'
import type { ControlDeps } from './deps.js'

const { VersioningBehavior } = protoRoot.temporal.api.enums.v1
const { PinnedOverrideBehavior } = protoRoot.temporal.api.workflow.v1.VersioningOverride

const MASK = { paths: ['versioning_override'] }

type Override = temporal.api.workflow.v1.IVersioningOverride

/** With the deprecated `behavior` too, as the SDK's start sends it. */
function overrideFor (body: RunVersioningBody): Override {
  if (body.behavior === 'autoUpgrade') return { autoUpgrade: true, behavior: VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE }
  return {
    pinned: { version: body.version, behavior: PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED },
    behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED
  }
}

const unknownVersion = (why: string) =>
  validationError([{ path: '/version', in: 'body', message: `names no version the engine knows: ${why}` }])

export function versioningActions ({ engine, runs, catalogs, deployments }: ControlDeps) {
  async function assertRunnable (version: WorkerDeploymentVersion, catalog: string, opts: { allowNoPollers?: boolean, signal?: AbortSignal }) {
    const { versions } = await deployments.routing(version.deploymentName, opts.signal)
    if (versions.length === 0) throw unknownVersion(`no versioned worker of deployment ${version.deploymentName} has polled the engine`)
    if (!versions.some((v) => v.version.buildId === version.buildId)) {
      throw unknownVersion(`worker deployment ${version.deploymentName} has no version ${version.buildId} (flowport deploy list ${version.deploymentName} lists them)`)
    }
    if (opts.allowNoPollers === true) return
    // null: the engine could not say; the engine's own check (its version on the task queue) still stands.
    if (await catalogs.workersPolling(catalog, opts.signal, version) !== false) return
    throw new ApiError(409, 'DeploymentConflictError', `No worker of version ${version.buildId} of ${version.deploymentName} polls catalog ${catalog} now ` +
      `(none within ${POLLER_RECENT_MS / 1000} s): the run would wait unseen. Start its workers first, or send allowNoPollers: true (flowport deploy move --allow-no-pollers)`)
  }

  /** The engine's FAILED_PRECONDITION for a pin: the version never polled the run's task queue. */
  function pinRefused (err: unknown, body: RunVersioningBody | null, catalog: string): unknown {
    if (body?.behavior !== 'pinned' || grpcCode(err) !== GrpcStatus.FAILED_PRECONDITION) return err
    return unknownVersion(`no worker of ${versionValue(body.version)} has polled catalog ${catalog}, the run's`)
  }

  async function update (run: RunRef, body: RunVersioningBody | null, catalog: string, call: ControlCall): Promise<RunVersioning> {
    const client = engine.as(call.identity)
    const { workflowExecutionOptions } = await engine.call(async () => await client.workflowService.updateWorkflowExecutionOptions({
      namespace: client.options.namespace,
      workflowExecution: run,
      workflowExecutionOptions: { versioningOverride: body === null ? null : overrideFor(body) },
      updateMask: MASK,
      identity: client.options.identity
    }), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(pinRefused(err, body, catalog), run) })
    return { ...run, versioningOverride: overrideOf(workflowExecutionOptions?.versioningOverride) }
  }

  async function setRunVersioning (call: ControlCall & { body: RunVersioningBody }): Promise<RunVersioning> {
    const { run, execution } = await openRun(runs, call)
    const { body } = call
    if (body.behavior === 'pinned') await assertRunnable(body.version, execution.taskQueue, { allowNoPollers: body.allowNoPollers, signal: call.signal })
    return await update(run, body, execution.taskQueue, call)
  }

  async function clearRunVersioning (call: ControlCall): Promise<RunVersioning> {
    const { run, execution } = await openRun(runs, call)
    return await update(run, null, execution.taskQueue, call)
  }

  return { setRunVersioning, clearRunVersioning }
}
