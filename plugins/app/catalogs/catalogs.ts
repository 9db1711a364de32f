/**
 * A catalog is its workflow's current run's start input: no worker round trip. Short caches keep a
 * start at one engine call and let clients poll /status without adding engine load. Never
 * published, not the default: 404 (retrying will not help). The default before its worker
 * published, or no worker polling: 503 with Retry-After (a worker is expected to come).
 */
import type { FastifyBaseLogger } from 'fastify'
import {
  CATALOG_FORMAT, CATALOG_FORMAT_MEMO_KEY, CATALOG_WORKFLOW_TYPE, catalogIdOf, catalogWorkflowId, type Catalog, type CatalogWorkflow, type CatalogWorkflowInput
} from '@flowport/core/contract'
import { untilAborted } from '../../../lib/abort.js'
import { ApiError, RETRY_AFTER_SECONDS } from '../../../lib/api-error.js'
import { type RunRef, isoOrNull } from '@flowport/core/run'
import type { CatalogVersion, CatalogVersions, CatalogWorkers } from '../../../schemas/catalog.js'
import type { Config } from '../../../schemas/config.js'
import { type Engine, isAlive, isUnversioned, lastPollMs, POLLER_RECENT_MS, versionOf, versionValue, workflowQueue } from '../engine/index.js'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { catalogDocuments } from './catalog-openapi.js'
import type { Deployments } from '../deployments/index.js'
import { createQueueCatalogs } from './queue-catalog.js'

const CACHE_TTL_MS = 2000
/** After DescribeTaskQueue failed or timed out, null at once for this long: a hanging engine costs one deadline per catalog every few seconds. */
const UNKNOWN_FOR_MS = 5000

export type Catalogs = ReturnType<typeof createCatalogs>

export interface CatalogsDeps {
  engine: Engine
  config: Pick<Config, 'SERVICE_CATALOG_ID' | 'SERVICE_WORKERS_POLLING_TIMEOUT_MS'>
  log: FastifyBaseLogger
  readRunInput: (run: RunRef) => Promise<unknown>
  apiDocument: () => unknown
  deployments: Pick<Deployments, 'routing' | 'openRuns'>
}

interface Publication { catalog: Catalog, deploymentName: string | null, workflowsOf: Record<string, string[]> }

const howToPublish = (catalogId: string) => `start a worker with SERVICE_CATALOG_ID=${catalogId} to publish it`

const notAvailable = (catalogId: string, why: string) => new ApiError(503, 'CatalogNotAvailableError',
  `Catalog ${catalogId} is not available: ${why}`, { headers: { 'retry-after': RETRY_AFTER_SECONDS } })

/** Callers share one engine call under its own deadline, not a caller's signal: one leaving never fails the others. Failures are not kept. */
function cached<T> (stats: { hits: number, misses: number }, load: (key: string) => Promise<T>) {
  const cache = new Map<string, { at: number, value: Promise<T> }>()
  return async (key: string, signal?: AbortSignal): Promise<T> => {
    const hit = cache.get(key)
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) {
      stats.hits++
      return await untilAborted(hit.value, signal)
    }
    stats.misses++
    const value = load(key)
    cache.set(key, { at: Date.now(), value })
    value.catch(() => { if (cache.get(key)?.value === value) cache.delete(key) })
    return await untilAborted(value, signal)
  }
}

export function createCatalogs ({ engine, config, log, readRunInput, apiDocument, deployments }: CatalogsDeps) {
  const defaultCatalog = config.SERVICE_CATALOG_ID
  const cacheStats = {
    catalog: { hits: 0, misses: 0 }, catalog_workers: { hits: 0, misses: 0 }, catalog_list: { hits: 0, misses: 0 }, catalog_deployment: { hits: 0, misses: 0 }
  }

  // A new catalog comes with a new run.
  const ofRun = new Map<string, { runId: string, input: Promise<CatalogWorkflowInput | null> }>()
  async function inputOfRun (workflowId: string, runId: string): Promise<CatalogWorkflowInput | null> {
    const known = ofRun.get(workflowId)
    if (known?.runId === runId) return await known.input
    const input = readRunInput({ workflowId, runId })
      .then((value) => ((value as Partial<CatalogWorkflowInput> | null)?.catalog === undefined ? null : value as CatalogWorkflowInput))
    ofRun.set(workflowId, { runId, input })
    input.catch(() => { if (ofRun.get(workflowId)?.input === input) ofRun.delete(workflowId) })
    return await input
  }

  const routing = cached(cacheStats.catalog_deployment, async (deploymentName) => await deployments.routing(deploymentName))

  /** The current version's entries while versioned workers have published (starts go to it), else the latest published. */
  async function shown (input: CatalogWorkflowInput): Promise<Publication> {
    const versions = Object.values(input.versions ?? {})
    const deploymentName = input.catalog.deployment?.deploymentName ?? versions[0]?.catalog.deployment?.deploymentName ?? null
    const workflowsOf = Object.fromEntries(Object.entries(input.versions ?? {}).map(([buildId, { catalog }]) => [buildId, catalog.workflows.map((w) => w.name)]))
    if (versions.length === 0 || deploymentName === null) return { catalog: { ...input.catalog, deployment: input.catalog.deployment ?? null }, deploymentName, workflowsOf }
    const { current } = await routing(deploymentName)
    const catalog = (current === null ? undefined : input.versions?.[current.buildId]?.catalog) ?? input.catalog
    return { catalog: { ...catalog, deployment: catalog.deployment ?? null }, deploymentName, workflowsOf }
  }

  const publication = cached(cacheStats.catalog, async (catalogId): Promise<Publication> => {
    const workflowId = catalogWorkflowId(catalogId)
    const description = await engine.call(() => engine.client.workflow.getHandle(workflowId).describe()).catch((err: unknown) => {
      if (!(err instanceof ApiError && err.statusCode === 404)) throw err
      if (catalogId === defaultCatalog) throw notAvailable(catalogId, `its worker has not published it yet; ${howToPublish(catalogId)}`)
      throw new ApiError(404, 'WorkflowNotFoundError', `Catalog ${catalogId} not found: no worker has ever published it; ${howToPublish(catalogId)}`)
    })
    const gone = () => notAvailable(catalogId, `it is no longer published; ${howToPublish(catalogId)}`)
    // A run of another format (an older worker's) is replaced as soon as a current worker publishes.
    if (description.status.name !== 'RUNNING' || description.memo?.[CATALOG_FORMAT_MEMO_KEY] !== CATALOG_FORMAT) throw gone()
    const input = await inputOfRun(workflowId, description.runId)
    if (input === null) throw gone()
    return await shown(input)
  })
  const get = async (catalogId: string, signal?: AbortSignal): Promise<Catalog> => (await publication(catalogId, signal)).catalog

  /** A drained version has no open runs and is not counted; null when the workers are unversioned. */
  async function versions (catalogId: string, signal?: AbortSignal): Promise<CatalogVersions | null> {
    const { deploymentName, workflowsOf } = await publication(catalogId, signal)
    if (deploymentName === null) return null
    const { current, ramping, versions } = await routing(deploymentName, signal)
    const counted = await Promise.all(versions.filter((v) => !v.drained).map(async ({ version }) => ({ version, openRuns: await deployments.openRuns(version, signal) })))
    const polled = (await taskQueue(catalogId, signal)).versions
    const polling = versions.flatMap(({ version, state }): CatalogVersion[] => {
      const pollers = polled.get(versionValue(version)) ?? 0
      if (pollers === 0) return []
      const rampPercentage = state === 'ramping' && ramping?.version.buildId === version.buildId ? ramping.percentage : null
      return [{ version, state, rampPercentage, pollers, workflows: workflowsOf[version.buildId] ?? null }]
    })
    return { deploymentName, current, ramping, polling, serving: counted.filter((v) => v.openRuns > 0) }
  }

  /** Unversioned pollers take the new runs of a deployment with no current version. */
  const taskQueue = cached(cacheStats.catalog_workers, async (catalogId): Promise<{ workers: CatalogWorkers, unversioned: number, versions: Map<string, number> }> => {
    const { pollers } = await engine.call(() => engine.client.workflowService.describeTaskQueue(workflowQueue(engine.namespace, catalogId)))
    const alive = (pollers ?? []).filter((p) => isAlive(p))
    const last = pollers?.length ? new Date(Math.max(...pollers.map(lastPollMs))) : null
    return {
      workers: { polling: alive.length > 0, pollers: alive.length, lastPollTime: isoOrNull(last) },
      unversioned: alive.filter(isUnversioned).length,
      versions: alive.reduce((counts, p) => {
        const version = versionOf(p.deploymentOptions)
        if (version !== null) counts.set(versionValue(version), (counts.get(versionValue(version)) ?? 0) + 1)
        return counts
      }, new Map<string, number>())
    }
  })
  const workers = async (catalogId: string, signal?: AbortSignal) => (await taskQueue(catalogId, signal)).workers

  const listed = cached(cacheStats.catalog_list, async (): Promise<string[]> => {
    const { namespace } = engine.client.options
    const { executions } = await engine.call(() => engine.client.workflowService.listWorkflowExecutions({
      namespace, pageSize: 1000, query: `WorkflowType = "${CATALOG_WORKFLOW_TYPE}" AND ExecutionStatus = "Running"`
    }))
    // By workflow id: a declared catalog's run waits on a queue of its own (DECLARED_CATALOG_TASK_QUEUE).
    return [...new Set((executions ?? []).flatMap((e) => catalogIdOf(e.execution?.workflowId ?? '') ?? []))].sort()
  })
  /** Visibility: eventually consistent. */
  const published = async (signal?: AbortSignal) => await listed('', signal)

  // A secondary fact never fails nor holds up its answer. Failures come in episodes: logged when one
  // starts and ends, not per request; meanwhile the answer is null at once.
  const undescribed = new Set<string>()
  const unknownUntil = new Map<string, number>()
  /** A pinned run needs a worker of its version. Null when the engine cannot say in time; its call runs on, shared with starts. */
  async function workersPolling (catalogId: string, signal?: AbortSignal, pinnedTo?: WorkerDeploymentVersion | null): Promise<boolean | null> {
    const until = unknownUntil.get(catalogId)
    if (until !== undefined) {
      if (Date.now() < until) return null
      unknownUntil.delete(catalogId)
    }
    const timeoutMs = config.SERVICE_WORKERS_POLLING_TIMEOUT_MS
    const deadline = AbortSignal.timeout(timeoutMs)
    try {
      const described = await taskQueue(catalogId, signal === undefined ? deadline : AbortSignal.any([signal, deadline]))
      const polling = pinnedTo == null ? described.workers.polling : described.versions.has(versionValue(pinnedTo))
      if (undescribed.delete(catalogId)) log.info({ catalog: catalogId }, 'task queue described again: workersPolling is known again')
      return polling
    } catch (err) {
      if (signal?.aborted === true) throw err
      unknownUntil.set(catalogId, Date.now() + UNKNOWN_FOR_MS)
      if (!undescribed.has(catalogId)) {
        undescribed.add(catalogId)
        const why = deadline.aborted ? `the engine did not answer DescribeTaskQueue within ${timeoutMs} ms (SERVICE_WORKERS_POLLING_TIMEOUT_MS)` : 'DescribeTaskQueue failed'
        log.warn({ err, catalog: catalogId }, `cannot describe the task queue: workersPolling is null until it can (${why})`)
      }
      return null
    }
  }

  /** 503 when no worker would run a new run. `pinned`: the start names its version, so the deployment's routing does not matter. */
  async function workflow (catalogId: string, name: string, signal?: AbortSignal, { pinned = false } = {}): Promise<CatalogWorkflow> {
    const catalog = await get(catalogId, signal)
    // Or a declared workflow's Temporal type: what a schedule's action stores.
    const found = catalog.workflows.find((w) => w.name === name || w.aliases.includes(name)) ?? catalog.workflows.find((w) => w.workflowType === name)
    if (!found) throw new ApiError(404, 'WorkflowNotFoundError', `Workflow ${name} is not in catalog ${catalogId}`)
    // The engine would accept the start and keep the run waiting, unseen, until a worker comes.
    const { workers: { polling }, unversioned } = await taskQueue(catalogId, signal)
    if (!polling) {
      throw notAvailable(catalogId, `no worker polls its task queue (none for ${POLLER_RECENT_MS / 1000} s); start a worker with SERVICE_CATALOG_ID=${catalogId}`)
    }
    // While no version of a deployment is current (or ramping), the engine gives its new runs to
    // unversioned workers. A refusal asks the engine again, uncached: a version may have just become current.
    const deploymentName = pinned || unversioned > 0 ? null : (await publication(catalogId, signal)).deploymentName
    const routes = (r: { current: unknown, ramping: unknown }) => r.current !== null || r.ramping !== null
    if (deploymentName !== null && !routes(await routing(deploymentName, signal))) {
      if (!routes(await deployments.routing(deploymentName, signal))) {
        throw notAvailable(catalogId, `no version of worker deployment ${deploymentName} is current, and the engine gives new runs to ` +
          `unversioned workers, of which none polls; make a version current: flowport deploy current <buildId> (flowport deploy list ${deploymentName} lists them)`)
      }
    }
    return found
  }

  const document = catalogDocuments(get, apiDocument, defaultCatalog)
  return { get, versions, workflow, workers, workersPolling, published, document, cacheStats, ...createQueueCatalogs(get) }
}
