/**
 * `flowport deploy list [deployment] | current <buildId> | current --unversioned | ramp <buildId> <percent> |
 * stop-ramp | rollback | move <workflowId>`: the /deployments routes and a run's versioning override
 * (docs/deploys.md), in the style of the other client commands. A deployment is named by
 * --deployment, by default the catalog id a worker uses as its deployment name (SERVICE_CATALOG_ID,
 * else `main`). Each change is sent with the deployment's ETag as `If-Match` (the one --if-match
 * names, else the one read just before), so that a change someone made meanwhile is never
 * overwritten unseen: the API answers 412, printed as such, exit 2.
 */
import type { Command } from 'commander'
import { PreconditionFailedError, type Deployment, type DeploymentSummary, type FlowportClient, type RunVersioning, type VersioningOverride, type WorkerDeploymentVersion } from '@flowport/client'
import { DEFAULT_CATALOG_ID } from '@flowport/core/settings'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { IF_MATCH_HELP } from './handlers.js'
import { info, printTable } from './output.js'

type DeployOptions = CommonOptions & { deployment?: string, allowNoPollers?: boolean, ifMatch?: string }

const deploymentOf = (options: DeployOptions) => options.deployment ?? process.env.SERVICE_CATALOG_ID ?? DEFAULT_CATALOG_ID

const nameOf = (v: WorkerDeploymentVersion | null) => v === null ? 'unversioned' : v.buildId

function percent (value: string): number {
  const p = Number(value)
  if (value.trim() === '' || !Number.isFinite(p) || p <= 0 || p > 100) throw new CliError(`error: <percent> must be a number above 0 and at most 100 (got ${value})`, EXIT.usage)
  return p
}

function printDeployment (d: Deployment, etag?: string): void {
  const ramp = d.ramping === null ? '' : `; ramping ${d.ramping.version.buildId} ${d.ramping.percentage}%`
  const tag = etag === undefined || etag === '' ? '' : `; ETag ${etag}`
  info(`Deployment ${d.deploymentName}: current ${nameOf(d.current)}${ramp}; last changed by ${d.lastModifiedBy ?? '-'}${tag}`)
  printTable(['build id', 'state', 'since', 'pollers', 'open runs', 'created'], d.versions.map((v) => [
    v.version.buildId,
    v.state === 'ramping' ? `ramping ${v.rampPercentage ?? 0}%` : v.state,
    v.since ?? '-',
    String(v.pollers),
    String(v.openRuns),
    v.createdAt ?? '-'
  ]))
}

function printDeployments (list: DeploymentSummary[]): void {
  printTable(['deployment', 'current', 'ramping', 'latest'], list.map((d) => [
    d.deploymentName,
    nameOf(d.current),
    d.ramping === null ? '-' : `${d.ramping.version.buildId} ${d.ramping.percentage}%`,
    d.latest?.buildId ?? '-'
  ]))
}

const IF_MATCH_DEPLOYMENT_HELP = 'the deployment\'s ETag as you read it (`deploy list <deployment>` prints it): the change is refused if anyone changed the deployment since (default: as read just before the change)'

/** --deployment and --if-match on a change command (and --allow-no-pollers on one that routes new runs). */
function change (deploy: Command, spec: string, description: string) {
  return clientCommand(deploy, spec, description)
    .option('--deployment <name>', `the worker deployment (default: SERVICE_CATALOG_ID, else ${DEFAULT_CATALOG_ID})`)
    .option('--if-match <etag>', IF_MATCH_DEPLOYMENT_HELP)
}

/**
 * Sends a change with the deployment's ETag as `If-Match`: the one the operator read (--if-match),
 * else the one read now. A 412 says that another change came in between, and what the deployment
 * is now, so that the operator decides again rather than overwrite it.
 */
async function guarded (client: FlowportClient, options: DeployOptions, send: (ifMatch: string) => Promise<Deployment>): Promise<Deployment> {
  const deploymentName = deploymentOf(options)
  const ifMatch = options.ifMatch ?? (await client.readDeployment(deploymentName)).etag
  try {
    return await send(ifMatch)
  } catch (err) {
    if (!(err instanceof PreconditionFailedError)) throw err
    const now = await client.getDeployment(deploymentName).then((d) => {
      const ramp = d.ramping === null ? '' : `, ramping ${d.ramping.version.buildId} ${d.ramping.percentage}%`
      return ` It is now: current ${nameOf(d.current)}${ramp}, last changed by ${d.lastModifiedBy ?? '-'}.`
    }, () => '')
    throw new CliError(`PreconditionFailedError: worker deployment ${deploymentName} was changed by someone else since ${options.ifMatch === undefined ? 'it was read' : 'that ETag was read'}: ` +
      `nothing was changed.${now} Check it (flowport deploy list ${deploymentName}) and run the command again if it still applies.`, EXIT.usage, err.body)
  }
}

function done (d: Deployment, options: DeployOptions, line: string): number {
  return answer(options, d, () => {
    info(line)
    printDeployment(d)
  })
}

const overrideText = (o: VersioningOverride | null) =>
  o === null ? 'no versioning override: it follows what its workers report' : o.behavior === 'pinned' ? `pinned to version ${o.version?.deploymentName}:${o.version?.buildId}` : 'autoUpgrade: it moves to the current version at its next workflow task'

/** `--to <buildId>` of the deployment, or `<deployment>:<buildId>` as the runs filter takes it. */
function targetOf (to: string, options: DeployOptions): WorkerDeploymentVersion {
  const at = to.indexOf(':')
  if (at === -1) return { deploymentName: deploymentOf(options), buildId: to }
  if (at === 0 || at === to.length - 1) throw new CliError(`error: --to takes <buildId> or <deployment>:<buildId> (got ${to})`, EXIT.usage)
  return { deploymentName: to.slice(0, at), buildId: to.slice(at + 1) }
}

type MoveOptions = DeployOptions & { to?: string, autoUpgrade?: boolean, clear?: boolean }

async function move (workflowId: string, options: MoveOptions): Promise<RunVersioning> {
  const chosen = [options.to !== undefined, options.autoUpgrade === true, options.clear === true].filter(Boolean).length
  if (chosen !== 1) throw new CliError('error: say where the run goes: --to <buildId>, --auto-upgrade or --clear (one of them)', EXIT.usage)
  const client = clientOf(options)
  const call = { runId: options.run, ifMatch: options.ifMatch }
  if (options.clear === true) return await client.clearVersioning(workflowId, call)
  if (options.autoUpgrade === true) return await client.setVersioning(workflowId, { behavior: 'autoUpgrade' }, call)
  const version = targetOf(options.to!, options)
  return await client.setVersioning(workflowId, { behavior: 'pinned', version, ...(options.allowNoPollers === true ? { allowNoPollers: true } : {}) }, call)
}

export function registerDeploy (program: Command): void {
  const deploy = program.command('deploy').description('worker deployments: list versions, make one current, ramp, roll back (docs/deploys.md)')

  clientCommand(deploy, 'list [deployment]', 'the worker deployments; with a name, its versions: state, since when, open runs')
    .option('--deployment <name>', 'the same as naming the deployment (as the other deploy commands take it)')
    .action(action(async (named: string | undefined, options: DeployOptions) => {
      const client = clientOf(options)
      const deploymentName = named ?? options.deployment
      if (deploymentName === undefined) {
        const list = await client.deployments()
        return answer(options, list, () => { printDeployments(list) })
      }
      const { deployment: d, etag } = await client.readDeployment(deploymentName)
      return answer(options, d, () => { printDeployment(d, etag) })
    }))

  change(deploy, 'current [buildId]', 'make a version current: new runs go to it; runs pinned to the old one finish there')
    .option('--unversioned', 'make no version current: new runs go to unversioned workers (SERVICE_WORKER_VERSIONING unset) again')
    .option('--allow-no-pollers', 'even when none of the version\'s workers (or no unversioned worker) polls now (new runs wait until one does)')
    .action(action(async (buildId: string | undefined, options: DeployOptions & { unversioned?: boolean }) => {
      if ((buildId === undefined) === (options.unversioned !== true)) throw new CliError('error: name one version: <buildId> or --unversioned', EXIT.usage)
      const client = clientOf(options)
      const d = await guarded(client, options, async (ifMatch) =>
        await client.setCurrentVersion(deploymentOf(options), buildId ?? null, { allowNoPollers: options.allowNoPollers, ifMatch }))
      return done(d, options, buildId === undefined ? `No version of ${d.deploymentName} is current: new runs go to unversioned workers.` : `Version ${buildId} of ${d.deploymentName} is current.`)
    }))

  change(deploy, 'ramp <buildId> <percent>', 'send <percent> (0 < p ≤ 100) of new runs to a version, the rest to the current one')
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls now (new runs wait until one does)')
    .action(action(async (buildId: string, percentArg: string, options: DeployOptions) => {
      const percentage = percent(percentArg)
      const client = clientOf(options)
      const d = await guarded(client, options, async (ifMatch) =>
        await client.rampVersion(deploymentOf(options), buildId, percentage, { allowNoPollers: options.allowNoPollers, ifMatch }))
      return done(d, options, `Version ${buildId} of ${d.deploymentName} receives ${d.ramping?.percentage ?? 0}% of new runs.`)
    }))

  change(deploy, 'stop-ramp', 'stop a ramp: every new run goes to the current version')
    .action(action(async (options: DeployOptions) => {
      const client = clientOf(options)
      const d = await guarded(client, options, async (ifMatch) => await client.stopRamp(deploymentOf(options), { ifMatch }))
      return done(d, options, `No version of ${d.deploymentName} is ramping.`)
    }))

  change(deploy, 'rollback', 'make the version that was current before the current one current again')
    .option('--to <buildId>', 'this version instead')
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls now (new runs wait until one does)')
    .action(action(async (options: DeployOptions & { to?: string }) => {
      const client = clientOf(options)
      const d = await guarded(client, options, async (ifMatch) =>
        await client.rollback(deploymentOf(options), { buildId: options.to, allowNoPollers: options.allowNoPollers, ifMatch }))
      return done(d, options, `Rolled back: version ${nameOf(d.current)} of ${d.deploymentName} is current.`)
    }))

  clientCommand(deploy, 'move <workflowId>', 'move an open run to another version (the engine\'s versioning override), e.g. one pinned to a version whose workers are gone')
    .option('--to <buildId>', 'pin it to this version of the deployment (or <deployment>:<buildId>)')
    .option('--auto-upgrade', 'let it follow the current version (it moves at its next workflow task)')
    .option('--clear', 'remove the override: it follows what its workers report again')
    .option('--deployment <name>', `the deployment of --to <buildId> (default: SERVICE_CATALOG_ID, else ${DEFAULT_CATALOG_ID})`)
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls the run\'s catalog now (it waits until one does)')
    .option('--run <runId>', 'this run instead of the latest run of the id')
    .option('--if-match <runId>', IF_MATCH_HELP)
    .action(action(async (workflowId: string, options: MoveOptions) => {
      const moved = await move(workflowId, options)
      return answer(options, moved, `Workflow ${moved.workflowId} (run ${moved.runId}): ${overrideText(moved.versioningOverride)}.`)
    }))
}
