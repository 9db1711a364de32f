/**
 * The cluster under test (scripts/test-cluster.ts): its members from the state file the cluster
 * keeps, requests to one replica (with the tests' key: auth is on, as in production), and the
 * SIGKILL of a member with the wait for its replacement.
 */
import { readFileSync } from 'node:fs'
import type { ClusterState, Member } from '../../cli/cluster/topology.js'
import { sleep, until } from '../helpers/processes.js'

export function clusterState (): ClusterState {
  const file = process.env.FLOWPORT_CLUSTER_STATE
  if (!file) throw new Error('FLOWPORT_CLUSTER_STATE is not set: run these tests with `npm run test:cluster`, which starts the cluster')
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState
}

export function member (name: string): Member {
  const found = clusterState().members.find((m) => m.name === name)
  if (!found) throw new Error(`no cluster member ${name}`)
  return found
}

export const apiUrl = (name: 'api-a' | 'api-b'): string => member(name).url

export interface Answer { status: number, body: any }

/** The `Authorization` header of the tests' key (every scope, no rate limit), or of `credential`. */
export function auth (credential = process.env.FLOWPORT_CLUSTER_KEY): Record<string, string> {
  if (!credential) throw new Error('FLOWPORT_CLUSTER_KEY is not set: run these tests with `npm run test:cluster`, which makes the key')
  return { authorization: `Bearer ${credential}` }
}

/** One JSON request to one replica, as the tests' key unless `headers` has an `authorization`; a network error (the replica is gone) rejects. */
export async function request (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...auth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000)
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

export async function ready (name: string): Promise<boolean> {
  return await until(async () => (await fetch(`${member(name).url}/ready`, { signal: AbortSignal.timeout(3000) })).status === 200, 240, 500)
}

/** SIGKILLs a member's process (no shutdown of its own) and returns its pid. */
export function kill (name: string): number {
  const { pid } = member(name)
  if (!pid) throw new Error(`${name} has no running process`)
  process.kill(pid, 'SIGKILL')
  return pid
}

/** Waits until the cluster runs a new process for `name` (not `oldPid`) and it is ready. */
export async function replaced (name: string, oldPid: number): Promise<boolean> {
  return await until(() => { const { pid } = member(name); return pid !== 0 && pid !== oldPid }, 240, 500) && await ready(name)
}

export { sleep }
