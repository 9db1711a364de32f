/**
 * What the engine says about a catalog's worker deployment (README, "Changing workflows safely"):
 * its current and ramping version (DescribeWorkerDeployment) and, per version, how many runs of
 * the catalog are open on it (a visibility count each). Nothing is stored outside the engine.
 */
import type { DeploymentVersion } from '@flowport/core/contract'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import { ApiError } from '../../../lib/api-error.js'
import { quote } from '../../../lib/visibility-query.js'
import type { CatalogVersions } from '../../../schemas/catalog.js'
import type { Engine } from '../engine/engine.js'

export interface Routing {
  current: DeploymentVersion | null
  ramping: { version: DeploymentVersion, percentage: number } | null
  /** Every version the deployment still lists, drained ones too. */
  versions: Array<{ version: DeploymentVersion, drained: boolean }>
}

const DRAINED = 2 // temporal.api.enums.v1.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED

const versionOf = (v: { deploymentName?: string | null, buildId?: string | null } | null | undefined): DeploymentVersion | null =>
  v?.buildId == null || v.buildId === '' ? null : { deploymentName: v.deploymentName ?? '', buildId: v.buildId }

/** The deployment's routing; a deployment no worker has registered yet routes nothing (all null). */
export async function describeRouting (engine: Engine, deploymentName: string, signal?: AbortSignal): Promise<Routing> {
  const { namespace } = engine
  try {
    const { workerDeploymentInfo: info } = await engine.call(() => engine.client.workflowService.describeWorkerDeployment({ namespace, deploymentName }), { signal })
    const routing = info?.routingConfig
    const ramping = versionOf(routing?.rampingDeploymentVersion)
    return {
      current: versionOf(routing?.currentDeploymentVersion),
      ramping: ramping === null ? null : { version: ramping, percentage: routing?.rampingVersionPercentage ?? 0 },
      versions: (info?.versionSummaries ?? []).flatMap((s) => {
        const version = versionOf(s.deploymentVersion)
        return version === null ? [] : [{ version, drained: s.drainageInfo?.status === DRAINED || s.drainageStatus === DRAINED }]
      })
    }
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return { current: null, ramping: null, versions: [] }
    throw err
  }
}

/**
 * The catalog's versions as the API shows them: current, ramping, and those with open runs of
 * the catalog (Flowport's own catalog workflow left out: it follows the current version). A
 * drained version has none and is not counted.
 */
export async function catalogVersions (engine: Engine, catalogId: string, deploymentName: string, routing: Routing, signal?: AbortSignal): Promise<CatalogVersions> {
  const { namespace } = engine
  const counted = await Promise.all(routing.versions.filter((v) => !v.drained).map(async ({ version }) => {
    const query = `TaskQueue = ${quote(catalogId)} AND ExecutionStatus = "Running" AND WorkflowType != ${quote(CATALOG_WORKFLOW_TYPE)} ` +
      `AND TemporalWorkerDeploymentVersion = ${quote(`${version.deploymentName}:${version.buildId}`)}`
    const { count } = await engine.call(() => engine.client.workflowService.countWorkflowExecutions({ namespace, query }), { signal })
    return { version, openRuns: Number(count ?? 0) }
  }))
  return {
    deploymentName,
    current: routing.current,
    ramping: routing.ramping,
    serving: counted.filter((v) => v.openRuns > 0)
  }
}
