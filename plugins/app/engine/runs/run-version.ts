/** A listed run has no versioning info (empty), so it is read from the engine's search attributes (docs/versioning.md). */
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
 * An override set at the start wins over what the worker reported, as in the engine's routing.
 * Null until a versioned worker completed the first workflow task, and for unversioned workers.
 */
export function runVersionOfInfo (info: temporal.api.workflow.v1.IWorkflowExecutionVersioningInfo | null | undefined): RunVersion {
  if (!info) return { ...UNVERSIONED, versioningOverride: null }
  const versioningOverride = overrideOf(info.versioningOverride)
  if (versioningOverride?.behavior === 'pinned') return { version: versioningOverride.version, versioning: 'pinned', versioningOverride }
  const behavior = versioningOverride?.behavior === 'autoUpgrade' ? 'AUTO_UPGRADE' : decodeVersioningBehavior(info.behavior)
  const version = versionOf(info.deploymentVersion)
  return { ...(behavior === undefined || version === null ? UNVERSIONED : { version, versioning: versioningOf[behavior] }), versioningOverride }
}

/** A one-time override (Temporal's `oneTime`) is not one Flowport sets, and is not shown. */
export function overrideOf (override: temporal.api.workflow.v1.IVersioningOverride | null | undefined): VersioningOverride | null {
  const pinnedTo = versionOf(override?.pinned?.version)
  if (pinnedTo) return { behavior: 'pinned', version: pinnedTo }
  if (override?.autoUpgrade === true) return { behavior: 'autoUpgrade', version: null }
  return null
}

const DEPLOYMENT = defineSearchAttributeKey('TemporalWorkerDeployment', SearchAttributeType.KEYWORD)
const DEPLOYMENT_VERSION = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', SearchAttributeType.KEYWORD)
const BEHAVIOR = defineSearchAttributeKey('TemporalWorkflowVersioningBehavior', SearchAttributeType.KEYWORD)

const versioningOfAttribute: Record<string, VersioningMode> = { Pinned: 'pinned', AutoUpgrade: 'autoUpgrade' }

export function runVersionOfAttributes (attributes: TypedSearchAttributes | undefined): RunVersion {
  const version = versionOfValue(attributes?.get(DEPLOYMENT), attributes?.get(DEPLOYMENT_VERSION))
  const behavior = attributes?.get(BEHAVIOR) ?? ''
  const versioning = Object.hasOwn(versioningOfAttribute, behavior) ? versioningOfAttribute[behavior] : undefined
  return version === null || versioning === undefined ? UNVERSIONED : { version, versioning }
}
