/**
 * The rollout service: the engine's worker deployments, read and changed through its worker
 * deployment APIs, which are the only record of them (nothing is stored elsewhere). Every change is
 * made with the caller's engine identity, which the engine keeps as the deployment's last modifier.
 * docs/deploys.md.
 */
import { CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { Client } from '@temporalio/client'
import protoRoot, { type temporal } from '@temporalio/proto'
import { tsToDate } from '@temporalio/common/lib/time.js'
import { ApiError } from '../../../lib/api-error.js'
import { entityTags } from '../../http/conditional/entity-tags.js'
import { quote } from '../../../lib/visibility-query.js'
import type { Deployment, DeploymentList, DeploymentVersionState } from '../../../schemas/deployments.js'
import { type Engine, versionOf, versionValue, grpcFailure, isAlive, lastPollMs, POLLER_RECENT_MS } from '../engine/index.js'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { deploymentChanged, deploymentConflict, deploymentError, describeError, versionNotFound } from './deployment-error.js'
import { byCreation, deploymentOf, isDrained, NOT_COUNTED, stateOf, summaryOf, type Polling, type VersionSummary } from './deployment-view.js'

const { TaskQueueKind, TaskQueueType, WorkerVersioningMode } = protoRoot.temporal.api.enums.v1

type Info = temporal.api.deployment.v1.IWorkerDeploymentInfo

export interface DeploymentsDeps {
  engine: Pick<Engine, 'call' | 'as' | 'client' | 'namespace'>
}

export interface ChangeOptions {
  /** The caller's engine identity (plugins/app/access/route-access.ts); undefined: the API's own. */
  identity?: string
  /** Route new runs to a version none of whose workers polls now. */
  allowNoPollers?: boolean
  /** The request's `If-Match`: the deployment's ETag as the caller last read it. */
  ifMatch?: string
  signal?: AbortSignal
}

export type Deployments = ReturnType<typeof createDeployments>

/** A deployment with its `ETag`: the engine's conflict token, which changes with every change of its routing. */
export interface TaggedDeployment { etag: string, deployment: Deployment }

const etagOf = (token: Uint8Array | null | undefined): string => `"${Buffer.from(token ?? []).toString('base64url')}"`

/** Where a deployment sends new runs, and its versions: what the catalogs concept needs to pick and show a catalog. */
export interface Routing {
  current: WorkerDeploymentVersion | null
  ramping: { version: WorkerDeploymentVersion, percentage: number } | null
  /** Every version the deployment still lists, drained ones too, with its state. */
  versions: Array<{ version: WorkerDeploymentVersion, drained: boolean, state: DeploymentVersionState['state'] }>
}

/** Deployments per page of the engine's listing. */
const LIST_PAGE_SIZE = 1000

export function createDeployments ({ engine }: DeploymentsDeps) {
  const { namespace } = engine
  const service = engine.client.workflowService

  async function describe (deploymentName: string, signal?: AbortSignal) {
    return await engine.call(async () => await service.describeWorkerDeployment({ namespace, deploymentName })
      .catch((err: unknown) => describeError(err, deploymentName)), { signal })
  }

  /** Open runs on a version, Flowport's internal runs excepted (visibility: eventually consistent). */
  async function openRuns (version: WorkerDeploymentVersion, signal?: AbortSignal): Promise<number> {
    const query = `TemporalWorkerDeploymentVersion = ${quote(versionValue(version))} AND ExecutionStatus = "Running" AND ` +
      `WorkflowType != ${quote(CATALOG_WORKFLOW_TYPE)} AND WorkflowType != ${quote(WEBHOOK_WORKFLOW_TYPE)}`
    return (await engine.call(async () => await engine.client.workflow.count(query), { signal })).count
  }

  /**
   * Live workers of a version: its pollers on each of its workflow task queues, the fewest of them
   * (a queue nobody of the version polls holds its runs there), and when any of them last polled
   * (the engine lists a poller for minutes after its worker left, so a version whose workers just
   * stopped says when they were last seen). Temporal's describe-version names the queues; the
   * pollers come from each queue's description.
   */
  async function pollers (version: WorkerDeploymentVersion, signal?: AbortSignal, describeQueue = queueDescriber(signal)): Promise<Polling> {
    const { workerDeploymentVersionInfo: info } = await engine.call(async () => await service.describeWorkerDeploymentVersion({ namespace, deploymentVersion: version }), { signal })
    const queues = (info?.taskQueueInfos ?? []).filter((q) => q.type === TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW && q.name)
    let seenMs = 0
    const counts = await Promise.all(queues.map(async ({ name }) => {
      const described = await describeQueue(name!)
      const own = (described.pollers ?? []).filter((p) =>
        p.deploymentOptions?.deploymentName === version.deploymentName && p.deploymentOptions.buildId === version.buildId)
      for (const p of own) seenMs = Math.max(seenMs, lastPollMs(p))
      return own.filter((p) => isAlive(p)).length
    }))
    return { pollers: counts.length === 0 ? 0 : Math.min(...counts), lastPollTime: seenMs === 0 ? null : new Date(seenMs).toISOString() }
  }

  /** Describes each workflow task queue once, however many versions poll it (the versions of a deployment share theirs). */
  function queueDescriber (signal?: AbortSignal) {
    const described = new Map<string, ReturnType<typeof service.describeTaskQueue>>()
    return async (name: string) => {
      let found = described.get(name)
      if (found === undefined) {
        described.set(name, found = engine.call(async () => await service.describeTaskQueue({
          namespace, taskQueue: { name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
        }), { signal }))
      }
      return await found
    }
  }

  async function show (deploymentName: string, signal?: AbortSignal): Promise<TaggedDeployment> {
    const described = await describe(deploymentName, signal)
    const info = described.workerDeploymentInfo ?? {}
    const summaries = info.versionSummaries ?? []
    const describeQueue = queueDescriber(signal)
    const counts = new Map(await Promise.all(summaries.map(async (v) => {
      const version = versionOf(v.deploymentVersion)
      if (version === null) return [v, NOT_COUNTED] as const
      const [runs, polling] = await Promise.all([openRuns(version, signal), pollers(version, signal, describeQueue)])
      return [v, { openRuns: runs, ...polling }] as const
    })))
    const deployment = deploymentOf({ ...info, name: info.name ?? deploymentName }, (v) => counts.get(v) ?? NOT_COUNTED)
    return { etag: etagOf(described.conflictToken), deployment }
  }

  /**
   * Unversioned workers on the deployment's workflow task queues (those of its current version,
   * else of its latest): the fewest over the queues, as for a version's pollers.
   */
  async function unversionedPollers (deploymentName: string, info: Info | null | undefined, signal?: AbortSignal): Promise<number> {
    const latest = byCreation(info?.versionSummaries ?? [])[0]?.deploymentVersion
    const version = versionOf(info?.routingConfig?.currentDeploymentVersion) ?? versionOf(latest)
    if (version === null) return 0
    const { workerDeploymentVersionInfo: described } = await engine.call(async () => await service.describeWorkerDeploymentVersion({ namespace, deploymentVersion: version }), { signal })
    const queues = (described?.taskQueueInfos ?? []).filter((q) => q.type === TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW && q.name)
    const describeQueue = queueDescriber(signal)
    const counts = await Promise.all(queues.map(async ({ name }) => ((await describeQueue(name!)).pollers ?? [])
      .filter((p) => p.deploymentOptions?.workerVersioningMode !== WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED && isAlive(p)).length))
    return counts.length === 0 ? 0 : Math.min(...counts)
  }

  /** Refuses to route new runs to a version none of whose workers polls, unless the caller says so. */
  async function assertPolled (deploymentName: string, buildId: string, opts: ChangeOptions): Promise<void> {
    if (opts.allowNoPollers === true || (await pollers({ deploymentName, buildId }, opts.signal)).pollers > 0) return
    throw deploymentConflict(`No worker of version ${buildId} of ${deploymentName} polls now (none within ${POLLER_RECENT_MS / 1000} s): ` +
      'new runs sent to it would wait unseen. Start its workers first, or send allowNoPollers: true (flowport deploy --allow-no-pollers)')
  }

  /**
   * What a change starts from: the deployment as described now (so an unknown deployment or build
   * id is a 404 of its own, not the engine's wording), checked against the caller's `If-Match`. Its
   * conflict token goes with the change, so that the engine refuses it if another change came in
   * between (a read-then-write such as rollback cannot undo a change it never saw).
   */
  async function base (deploymentName: string, buildId: string | undefined, opts: ChangeOptions) {
    const described = await describe(deploymentName, opts.signal)
    const summaries = described.workerDeploymentInfo?.versionSummaries ?? []
    if (buildId !== undefined && !summaries.some((v) => v.deploymentVersion?.buildId === buildId)) throw versionNotFound(deploymentName, buildId)
    const token = described.conflictToken ?? new Uint8Array()
    if (opts.ifMatch !== undefined && !entityTags(opts.ifMatch).some((tag) => tag === '*' || tag === etagOf(token))) throw deploymentChanged(deploymentName)
    return { info: described.workerDeploymentInfo, conflictToken: token }
  }

  /** The engine's refusal of a change; one that names the conflict token is a change that came in between. */
  function refused (err: unknown, target: { deploymentName: string, buildId?: string }, opts: ChangeOptions): never {
    const details = grpcFailure(err)?.details ?? ''
    if (/conflict.?token/i.test(details)) {
      if (opts.ifMatch !== undefined) throw deploymentChanged(target.deploymentName)
      throw deploymentConflict(`Worker deployment ${target.deploymentName} was changed by another request at the same moment: nothing was changed by this one; read it again and decide`)
    }
    return deploymentError(err, target)
  }

  /** The engine's client carrying the caller's identity, and that identity (the client's default when none). */
  function as (identity: string | undefined): { client: Client, identity: string } {
    const client = engine.as(identity)
    return { client, identity: client.options.identity }
  }

  async function makeCurrent (deploymentName: string, buildId: string, conflictToken: Uint8Array, opts: ChangeOptions): Promise<TaggedDeployment> {
    await assertPolled(deploymentName, buildId, opts)
    const { client, identity } = as(opts.identity)
    const allowNoPollers = opts.allowNoPollers === true
    await engine.call(async () => await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity, allowNoPollers, conflictToken })
      .catch((err: unknown) => refused(err, { deploymentName, buildId }, opts)), { signal: opts.signal })
    return await show(deploymentName, opts.signal)
  }

  /** `buildId` null: no version is current, new runs go to unversioned workers (the engine's empty build id). */
  async function setCurrent (deploymentName: string, buildId: string | null, opts: ChangeOptions = {}): Promise<TaggedDeployment> {
    const { info, conflictToken } = await base(deploymentName, buildId ?? undefined, opts)
    if (buildId !== null) return await makeCurrent(deploymentName, buildId, conflictToken, opts)
    if (opts.allowNoPollers !== true && await unversionedPollers(deploymentName, info, opts.signal) === 0) {
      throw deploymentConflict(`No unversioned worker polls the task queues of worker deployment ${deploymentName} now (none within ${POLLER_RECENT_MS / 1000} s): ` +
        'new runs sent to them would wait unseen. Start an unversioned worker first (SERVICE_WORKER_VERSIONING unset), or send allowNoPollers: true (flowport deploy current --unversioned --allow-no-pollers)')
    }
    const { client, identity } = as(opts.identity)
    await engine.call(async () => await client.workflowService.setWorkerDeploymentCurrentVersion({
      namespace, deploymentName, buildId: '', identity, allowNoPollers: opts.allowNoPollers === true, conflictToken
    }).catch((err: unknown) => refused(err, { deploymentName }, opts)), { signal: opts.signal })
    return await show(deploymentName, opts.signal)
  }

  /** `buildId` undefined: stops the ramp (new runs all go to the current version). */
  async function setRamp (deploymentName: string, ramp: { buildId: string, percentage: number } | undefined, opts: ChangeOptions = {}): Promise<TaggedDeployment> {
    const { conflictToken } = await base(deploymentName, ramp?.buildId, opts)
    if (ramp !== undefined) await assertPolled(deploymentName, ramp.buildId, opts)
    const { client, identity } = as(opts.identity)
    const request = { namespace, deploymentName, buildId: ramp?.buildId ?? '', percentage: ramp?.percentage ?? 0, identity, allowNoPollers: opts.allowNoPollers === true, conflictToken }
    await engine.call(async () => await client.workflowService.setWorkerDeploymentRampingVersion(request)
      .catch((err: unknown) => refused(err, { deploymentName, buildId: ramp?.buildId }, opts)), { signal: opts.signal })
    return await show(deploymentName, opts.signal)
  }

  /**
   * Makes the version that was current before the current one current again: of the versions not
   * current now, the one that most recently became current (the engine's `lastCurrentTime`), or
   * the one `buildId` names. A ramp is left as it is.
   */
  async function rollback (deploymentName: string, buildId: string | undefined, opts: ChangeOptions = {}): Promise<TaggedDeployment> {
    const { info, conflictToken } = await base(deploymentName, buildId, opts)
    if (buildId !== undefined) return await makeCurrent(deploymentName, buildId, conflictToken, opts)
    const current = info?.routingConfig?.currentDeploymentVersion?.buildId ?? ''
    const lastCurrent = (v: VersionSummary) => v.lastCurrentTime ? tsToDate(v.lastCurrentTime).getTime() : -1
    const previous = (info?.versionSummaries ?? [])
      .filter((v) => v.deploymentVersion?.buildId && v.deploymentVersion.buildId !== current && lastCurrent(v) >= 0)
      .sort((a, b) => lastCurrent(b) - lastCurrent(a))[0]
    if (previous === undefined) throw deploymentConflict(`Worker deployment ${deploymentName} has no version that was current before ${current === '' ? 'now' : current}: name one with buildId`)
    return await makeCurrent(deploymentName, previous.deploymentVersion!.buildId!, conflictToken, opts)
  }

  /** The deployment's routing without counting runs; a deployment no worker has registered yet routes nothing. */
  async function routing (deploymentName: string, signal?: AbortSignal): Promise<Routing> {
    const info = await describe(deploymentName, signal).then((d) => d.workerDeploymentInfo, (err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) return null
      throw err
    })
    const ramping = versionOf(info?.routingConfig?.rampingDeploymentVersion)
    return {
      current: versionOf(info?.routingConfig?.currentDeploymentVersion),
      ramping: ramping === null ? null : { version: ramping, percentage: info?.routingConfig?.rampingVersionPercentage ?? 0 },
      versions: byCreation(info?.versionSummaries ?? []).flatMap((v) => {
        const version = versionOf(v.deploymentVersion)
        return version === null ? [] : [{ version, drained: isDrained(v), state: stateOf(v).state }]
      })
    }
  }

  return {
    async list (signal?: AbortSignal): Promise<DeploymentList> {
      const deployments: DeploymentList['deployments'] = []
      let nextPageToken: Uint8Array | undefined
      do {
        const page = await engine.call(async () => await service.listWorkerDeployments({ namespace, pageSize: LIST_PAGE_SIZE, nextPageToken }), { signal })
        deployments.push(...(page.workerDeployments ?? []).map(summaryOf))
        nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined
      } while (nextPageToken !== undefined)
      return { deployments }
    },
    show,
    routing,
    openRuns,
    setCurrent,
    setRamp,
    rollback
  }
}
