/**
 * The engine lists a poller for minutes after its worker left; a live worker renews its long poll
 * at least every 60 s, so a poller seen within 70 s is alive.
 */
import protoRoot, { type temporal } from '@temporalio/proto'
import { optionalTsToMs } from '@temporalio/common/lib/time.js'

type PollerInfo = temporal.api.taskqueue.v1.IPollerInfo

const { TaskQueueKind, TaskQueueType, WorkerVersioningMode } = protoRoot.temporal.api.enums.v1

export const POLLER_RECENT_MS = 70_000

export const lastPollMs = (p: PollerInfo): number => optionalTsToMs(p.lastAccessTime) ?? 0

export const isAlive = (p: PollerInfo, now = Date.now()): boolean => now - lastPollMs(p) < POLLER_RECENT_MS

export const isUnversioned = (p: PollerInfo): boolean => p.deploymentOptions?.workerVersioningMode !== WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED

/** DescribeTaskQueue's request for a workflow task queue: its pollers are the workers that run its runs. */
export const workflowQueue = (namespace: string, name: string) =>
  ({ namespace, taskQueue: { name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW })
