/**
 * The engine's worker deployment APIs are the only record of deployments (nothing is stored
 * elsewhere). Every change carries the caller's engine identity, kept as the last modifier (docs/deploys.md).
 */
import type { Client } from '@temporalio/client'
import protoRoot, { type temporal } from '@temporalio/proto'
import { tsToDate } from '@temporalio/common/lib/time.js'
import { ifNotFound } from '../../../lib/api-error.js'
import { conflictTag, namesTag } from '../../http/conditional/entity-tags.js'
import { INTERNAL_RUNS_EXCLUDED, quote } from '../../../lib/visibility-query.js'
import type { Deployment, DeploymentList, DeploymentVersionState } from '../../../schemas/deployments.js'
import { type Engine, versionOf, versionValue, grpcFailure, isAlive, isUnversioned, lastPollMs, POLLER_RECENT_MS, workflowQueue } from '../engine/index.js'
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { deploymentChanged, deploymentConflict, deploymentError, describeError, versionNotFound } from './deployment-error.js'
import { byCreation, deploymentOf, isDrained, NOT_COUNTED, stateOf, summaryOf, type Polling, type VersionSummary } from './deployment-view.js'

const { TaskQueueType } = protoRoot.temporal.api.enums.v1

type Info = temporal.api.deployment.v1.IWorkerDeploymentInfo

export interface DeploymentsDeps {
  engine: Pick<Engine, 'call' | 'as' | 'client' | 'namespace'>
}

export interface ChangeOptions {
  /** Undefined: the API's own. */
  identity?: string
  allowNoPollers?: boolean
  ifMatch?: string
  signal?: AbortSignal
}

export type Deployments = ReturnType<typeof createDeployments>

/** `ETag`: the engine's conflict token, which changes with every routing change. */
export interface TaggedDeployment { etag: string, deployment: Deployment }

export interface Routing {
  current: WorkerDeploymentVersion | null
  ramping: { version: WorkerDeploymentVersion, percentage: number } | null
  versions: Array<{ version: WorkerDeploymentVersion, drained: boolean, state: DeploymentVersionState['state'] }>
}

const LIST_PAGE_SIZE = 1000

const fewest = (counts: number[]) => counts.length === 0 ? 0 : Math.min(...counts)

export function createDeployments ({ engine }: DeploymentsDeps) {
  const { namespace } = engine
  const service = engine.client.workflowService

  async function describe (deploymentName: string, signal?: AbortSignal) {
    return await engine.call(async () => await service.describeWorkerDeployment({ namespace, deploymentName })
      .catch((err: unknown) => describeError(err, deploymentName)), { signal })
  }

  /** Internal runs excepted; visibility lags. */
  async function openRuns (version: WorkerDeploymentVersion, signal?: AbortSignal): Promise<number> {
    const query = [`TemporalWorkerDeploymentVersion = ${quote(versionValue(version))}`, 'ExecutionStatus = "Running"', ...INTERNAL_RUNS_EXCLUDED].join(' AND ')
    return (await engine.call(async () => await engine.client.workflow.count(query), { signal })).count
  }

  async function queuePollers (version: WorkerDeploymentVersion, signal?: AbortSignal, describeQueue = queueDescriber(signal)) {
    const { workerDeploymentVersionInfo: info } = await engine.call(async () => await service.describeWorkerDeploymentVersion({ namespace, deploymentVersion: version }), { signal })
    const queues = (info?.taskQueueInfos ?? []).filter((q) => q.type === TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW && q.name)
    return await Promise.all(queues.map(async ({ name }) => (await describeQueue(name!)).pollers ?? []))
  }

  /**
   * The fewest pollers over the version's workflow task queues (a queue none of its workers polls
   * holds its runs), and when one last polled: the engine lists a poller for minutes after its worker left.
   */
  async function pollers (version: WorkerDeploymentVersion, signal?: AbortSignal, describeQueue?: ReturnType<typeof queueDescriber>): Promise<Polling> {
    let seenMs = 0
    const counts = (await queuePollers(version, signal, describeQueue)).map((all) => {
      const own = all.filter((p) => p.deploymentOptions?.deploymentName === version.deploymentName && p.deploymentOptions.buildId === version.buildId)
      for (const p of own) seenMs = Math.max(seenMs, lastPollMs(p))
      return own.filter((p) => isAlive(p)).length
    })
    return { pollers: fewest(counts), lastPollTime: seenMs === 0 ? null : new Date(seenMs).toISOString() }
  }

  /** Once per queue: the versions of a deployment share theirs. */
  function queueDescriber (signal?: AbortSignal) {
    const described = new Map<string, ReturnType<typeof service.describeTaskQueue>>()
    return async (name: string) => {
      let found = described.get(name)
      if (found === undefined) {
        described.set(name, found = engine.call(async () => await service.describeTaskQueue(workflowQueue(namespace, name)), { signal }))
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
    return { etag: conflictTag(described.conflictToken), deployment }
  }

  /** On the queues of the current version, else the latest; the fewest over the queues. */
  async function unversionedPollers (info: Info | null | undefined, signal?: AbortSignal): Promise<number> {
    const latest = byCreation(info?.versionSummaries ?? [])[0]?.deploymentVersion
    const version = versionOf(info?.routingConfig?.currentDeploymentVersion) ?? versionOf(latest)
    if (version === null) return 0
    return fewest((await queuePollers(version, signal)).map((all) => all.filter((p) => isUnversioned(p) && isAlive(p)).length))
  }

  async function assertPolled (deploymentName: string, buildId: string, opts: ChangeOptions): Promise<void> {
    if (opts.allowNoPollers === true || (await pollers({ deploymentName, buildId }, opts.signal)).pollers > 0) return
    throw deploymentConflict(`No worker of version ${buildId} of ${deploymentName} polls now (none within ${POLLER_RECENT_MS / 1000} s): ` +
      'new runs sent to it would wait unseen. Start its workers first, or send allowNoPollers: true (flowport deploy --allow-no-pollers)')
  }

  /**
   * Described first, so an unknown deployment or build id is our own 404, and checked against
   * `If-Match`. Its conflict token goes with the change, so the engine refuses a change that came
   * in between (a rollback must not undo a change it never saw).
   */
  async function base (deploymentName: string, buildId: string | undefined, opts: ChangeOptions) {
    const described = await describe(deploymentName, opts.signal)
    const summaries = described.workerDeploymentInfo?.versionSummaries ?? []
    if (buildId !== undefined && !summaries.some((v) => v.deploymentVersion?.buildId === buildId)) throw versionNotFound(deploymentName, buildId)
    const token = described.conflictToken ?? new Uint8Array()
    if (opts.ifMatch !== undefined && !namesTag(opts.ifMatch, conflictTag(token))) throw deploymentChanged(deploymentName)
    return { info: described.workerDeploymentInfo, conflictToken: token }
  }

  /** One that names the conflict token is a change that came in between. */
  function refused (err: unknown, target: { deploymentName: string, buildId?: string }, opts: ChangeOptions): never {
    const details = grpcFailure(err)?.details ?? ''
    if (/conflict.?token/i.test(details)) {
      if (opts.ifMatch !== undefined) throw deploymentChanged(target.deploymentName)
      throw deploymentConflict(`Worker deployment ${target.deploymentName} was changed by another request at the same moment: nothing was changed by this one; read it again and decide`)
    }
    return deploymentError(err, target)
  }

  function as (identity: string | undefined): { client: Client, identity: string } {
    const client = engine.as(identity)
    return { client, identity: client.options.identity }
  }

  async function makeCurrent (deploymentName: string, buildId: string, conflictToken: Uint8Array, opts: ChangeOptions): Promise<TaggedDeployment> {
    if (buildId !== '') await assertPolled(deploymentName, buildId, opts)
    const { client, identity } = as(opts.identity)
    const allowNoPollers = opts.allowNoPollers === true
    await engine.call(async () => await client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity, allowNoPollers, conflictToken })
      .catch((err: unknown) => refused(err, { deploymentName, buildId: buildId || undefined }, opts)), { signal: opts.signal })
    return await show(deploymentName, opts.signal)
  }

  /** `buildId` null: new runs go to unversioned workers. */
  async function setCurrent (deploymentName: string, buildId: string | null, opts: ChangeOptions = {}): Promise<TaggedDeployment> {
    const { info, conflictToken } = await base(deploymentName, buildId ?? undefined, opts)
    if (buildId === null && opts.allowNoPollers !== true && await unversionedPollers(info, opts.signal) === 0) {
      throw deploymentConflict(`No unversioned worker polls the task queues of worker deployment ${deploymentName} now (none within ${POLLER_RECENT_MS / 1000} s): ` +
        'new runs sent to them would wait unseen. Start an unversioned worker first (SERVICE_WORKER_VERSIONING unset), or send allowNoPollers: true (flowport deploy current --unversioned --allow-no-pollers)')
    }
    return await makeCurrent(deploymentName, buildId ?? '', conflictToken, opts)
  }

  /** `buildId` undefined: stops the ramp. */
  async function setRamp (deploymentName: string, ramp: { buildId: string, percentage: number } | undefined, opts: ChangeOptions = {}): Promise<TaggedDeployment> {
    const { conflictToken } = await base(deploymentName, ramp?.buildId, opts)
    if (ramp !== undefined) await assertPolled(deploymentName, ramp.buildId, opts)
    const { client, identity } = as(opts.identity)
    const request = { namespace, deploymentName, buildId: ramp?.buildId ?? '', percentage: ramp?.percentage ?? 0, identity, allowNoPollers: opts.allowNoPollers === true, conflictToken }
    await engine.call(async () => await client.workflowService.setWorkerDeploymentRampingVersion(request)
      .catch((err: unknown) => refused(err, { deploymentName, buildId: ramp?.buildId }, opts)), { signal: opts.signal })
    return await show(deploymentName, opts.signal)
  }

  /** The version not current now that most recently was (the engine's `lastCurrentTime`), or `buildId`'s; a ramp stays. */
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

  /** A deployment no worker has registered yet routes nothing. */
  async function routing (deploymentName: string, signal?: AbortSignal): Promise<Routing> {
    const info = await describe(deploymentName, signal).then((d) => d.workerDeploymentInfo, ifNotFound(null))
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
