/**
 * The engine's description of a worker deployment as the wire's Deployment (schemas/deployments.ts):
 * each version's state and when it entered it, from the engine's version summaries and routing config.
 */
import protoRoot, { type temporal } from '@temporalio/proto'
import { tsToDate } from '@temporalio/common/lib/time.js'
import { versionOf } from '../engine/index.js'
import type { Deployment, DeploymentSummary, DeploymentVersionState, Ramp } from '../../../schemas/deployments.js'

type Info = temporal.api.deployment.v1.IWorkerDeploymentInfo
type RoutingConfig = temporal.api.deployment.v1.IRoutingConfig
export type VersionSummary = temporal.api.deployment.v1.WorkerDeploymentInfo.IWorkerDeploymentVersionSummary
type Timestamp = Parameters<typeof tsToDate>[0]

const { WorkerDeploymentVersionStatus: Status } = protoRoot.temporal.api.enums.v1

export const iso = (ts: Timestamp | null | undefined) => ts ? tsToDate(ts).toISOString() : null

export function rampOf (routing: RoutingConfig | null | undefined): Ramp | null {
  const version = versionOf(routing?.rampingDeploymentVersion)
  if (version === null) return null
  return { version, percentage: routing?.rampingVersionPercentage ?? 0, since: iso(routing?.rampingVersionChangedTime) }
}

/** Whether no run needs the version any more (its status, or its drainage check). */
export const isDrained = (v: VersionSummary) => v.status === Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED ||
  v.drainageInfo?.status === protoRoot.temporal.api.enums.v1.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED

/** The engine's status and when the version entered it. */
export function stateOf (v: VersionSummary): Pick<DeploymentVersionState, 'state' | 'since'> {
  switch (v.status) {
    case Status.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT: return { state: 'current', since: iso(v.currentSinceTime) }
    case Status.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING: return { state: 'ramping', since: iso(v.rampingSinceTime) }
    case Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING: return { state: 'draining', since: iso(v.lastDeactivationTime) }
    case Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED: return { state: 'drained', since: iso(v.drainageInfo?.lastChangedTime) }
    // Inactive (also the engine's `created` and an unset status): polled, never given runs, or no longer ramping without having been current.
    default: return { state: 'inactive', since: iso(v.lastDeactivationTime ?? v.createTime) }
  }
}

export function versionState (v: VersionSummary, routing: RoutingConfig | null | undefined, { openRuns, pollers, lastPollTime }: Workers): DeploymentVersionState {
  const { state, since } = stateOf(v)
  const draining = state === 'draining' || state === 'drained'
  return {
    version: versionOf(v.deploymentVersion)!,
    state,
    since,
    rampPercentage: state === 'ramping' ? routing?.rampingVersionPercentage ?? 0 : null,
    createdAt: iso(v.createTime),
    lastCurrentAt: iso(v.lastCurrentTime),
    drainageCheckedAt: draining ? iso(v.drainageInfo?.lastCheckedTime) : null,
    pollers,
    lastPollTime,
    openRuns
  }
}

const createdMs = (v: VersionSummary) => v.createTime ? tsToDate(v.createTime).getTime() : 0

/** The versions the engine lists, most recently created first. */
export const byCreation = (versions: VersionSummary[]) => [...versions].sort((a, b) => createdMs(b) - createdMs(a))

/** A version's live pollers, and when one of its workers last polled (null: the engine lists none). */
export interface Polling { pollers: number, lastPollTime: string | null }

/** What is counted per version besides the engine's summary: its open runs and live pollers. */
export interface Workers extends Polling { openRuns: number }

export const NOT_COUNTED: Workers = { openRuns: 0, pollers: 0, lastPollTime: null }

export function deploymentOf (info: Info, counted: (v: VersionSummary) => Workers): Deployment {
  const routing = info.routingConfig
  return {
    deploymentName: info.name ?? '',
    createdAt: iso(info.createTime),
    current: versionOf(routing?.currentDeploymentVersion),
    currentSince: versionOf(routing?.currentDeploymentVersion) === null ? null : iso(routing?.currentVersionChangedTime),
    ramping: rampOf(routing),
    lastModifiedBy: info.lastModifierIdentity || null,
    versions: byCreation((info.versionSummaries ?? []).filter((v) => versionOf(v.deploymentVersion) !== null))
      .map((v) => versionState(v, routing, counted(v)))
  }
}

export function summaryOf (d: temporal.api.workflowservice.v1.ListWorkerDeploymentsResponse.IWorkerDeploymentSummary): DeploymentSummary {
  return {
    deploymentName: d.name ?? '',
    createdAt: iso(d.createTime),
    current: versionOf(d.routingConfig?.currentDeploymentVersion),
    ramping: rampOf(d.routingConfig),
    latest: versionOf(d.latestVersionSummary?.deploymentVersion)
  }
}
