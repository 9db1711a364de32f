/**
 * Which worker deployment version a run is on and how it follows new versions (`version` and
 * `versioning` of a run's status; docs/versioning.md). A describe carries the
 * engine's versioning info; a visibility list does not (its executionInfo.versioningInfo is
 * empty), so listed runs are read from the search attributes the engine keeps for them.
 */
import { SearchAttributeType, decodeVersioningBehavior, defineSearchAttributeKey, type TypedSearchAttributes } from '@temporalio/common'
import type { temporal } from '@temporalio/proto'
import type { WorkerDeploymentVersion } from '../../../../schemas/deployment-version.js'
import type { VersioningOverride } from '../../../../schemas/run-versioning.js'
import type { VersioningMode } from '@flowport/core/contract'
import { versionOf, versionOfValue } from '../deployment-version.js'

export interface RunVersion {
  version: WorkerDeploymentVersion | null
  versioning: VersioningMode | null
  /** From a describe only (a listed run does not say): the engine's override, null when none. */
  versioningOverride?: VersioningOverride | null
}

export const UNVERSIONED: RunVersion = { version: null, versioning: null }

const versioningOf: Record<'PINNED' | 'AUTO_UPGRADE', VersioningMode> = { PINNED: 'pinned', AUTO_UPGRADE: 'autoUpgrade' }

/**
 * From a describe's versioning info. An override set at the start (a `version` in the start body)
 * wins over what the worker reported, as it does for the engine's routing. Both fields are null
 * until a versioned worker completed the run's first workflow task (the engine knows no behavior
 * before), and for a run of an unversioned worker, even one that sends a build id.
 */
export function runVersionOfInfo (info: temporal.api.workflow.v1.IWorkflowExecutionVersioningInfo | null | undefined): RunVersion {
  if (!info) return { ...UNVERSIONED, versioningOverride: null }
  const versioningOverride = overrideOf(info.versioningOverride)
  if (versioningOverride?.behavior === 'pinned') return { version: versioningOverride.version, versioning: 'pinned', versioningOverride }
  const behavior = versioningOverride?.behavior === 'autoUpgrade' ? 'AUTO_UPGRADE' : decodeVersioningBehavior(info.behavior)
  const version = versionOf(info.deploymentVersion)
  return { ...(behavior === undefined || version === null ? UNVERSIONED : { version, versioning: versioningOf[behavior] }), versioningOverride }
}

/**
 * The engine's override as the wire shows it; null when none. A one-time override (Temporal's
 * `oneTime`, which lasts until one workflow task completes) is not one Flowport sets, and is not shown.
 */
export function overrideOf (override: temporal.api.workflow.v1.IVersioningOverride | null | undefined): VersioningOverride | null {
  const pinnedTo = versionOf(override?.pinned?.version)
  if (pinnedTo) return { behavior: 'pinned', version: pinnedTo }
  if (override?.autoUpgrade === true) return { behavior: 'autoUpgrade', version: null }
  return null
}

/** The engine's search attributes of a versioned run (Temporal's built-in ones). */
const DEPLOYMENT = defineSearchAttributeKey('TemporalWorkerDeployment', SearchAttributeType.KEYWORD)
/** `<deploymentName>:<buildId>` */
const DEPLOYMENT_VERSION = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', SearchAttributeType.KEYWORD)
const BEHAVIOR = defineSearchAttributeKey('TemporalWorkflowVersioningBehavior', SearchAttributeType.KEYWORD)

const versioningOfAttribute: Record<string, VersioningMode> = { Pinned: 'pinned', AutoUpgrade: 'autoUpgrade' }

/** From a listed run's search attributes. */
export function runVersionOfAttributes (attributes: TypedSearchAttributes | undefined): RunVersion {
  const version = versionOfValue(attributes?.get(DEPLOYMENT), attributes?.get(DEPLOYMENT_VERSION))
  const behavior = attributes?.get(BEHAVIOR) ?? ''
  const versioning = Object.hasOwn(versioningOfAttribute, behavior) ? versioningOfAttribute[behavior] : undefined
  return version === null || versioning === undefined ? UNVERSIONED : { version, versioning }
}
