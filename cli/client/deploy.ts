/**
 * `flowport deploy list [deployment] | current <buildId> | ramp <buildId> <percent> | stop-ramp | rollback`: the
 * /deployments routes (docs/deploys.md), in the style of the other client commands. A deployment
 * is named by --deployment, by default the catalog id a worker uses as its deployment name
 * (SERVICE_CATALOG_ID, else `main`).
 */
import type { Command } from 'commander'
import type { Deployment, DeploymentSummary, WorkerDeploymentVersion } from '@flowport/client'
import { DEFAULT_CATALOG_ID } from '@flowport/core/settings'
import { action, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { info, printJson, printTable } from './output.js'

type DeployOptions = CommonOptions & { deployment?: string, allowNoPollers?: boolean }

const deploymentOf = (options: DeployOptions) => options.deployment ?? process.env.SERVICE_CATALOG_ID ?? DEFAULT_CATALOG_ID

const nameOf = (v: WorkerDeploymentVersion | null) => v === null ? 'unversioned' : v.buildId

function percent (value: string): number {
  const p = Number(value)
  if (value.trim() === '' || !Number.isFinite(p) || p <= 0 || p > 100) throw new CliError(`error: <percent> must be a number above 0 and at most 100 (got ${value})`, EXIT.usage)
  return p
}

function printDeployment (d: Deployment): void {
  const ramp = d.ramping === null ? '' : `; ramping ${d.ramping.version.buildId} ${d.ramping.percentage}%`
  info(`Deployment ${d.deploymentName}: current ${nameOf(d.current)}${ramp}; last changed by ${d.lastModifiedBy ?? '-'}`)
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

/** --deployment on a change command (and --allow-no-pollers on one that routes new runs), and how the answer is printed. */
function change (deploy: Command, spec: string, description: string) {
  return clientCommand(deploy, spec, description)
    .option('--deployment <name>', `the worker deployment (default: SERVICE_CATALOG_ID, else ${DEFAULT_CATALOG_ID})`)
}

function done (d: Deployment, options: DeployOptions, line: string): number {
  if (options.json) printJson(d)
  else {
    info(line)
    printDeployment(d)
  }
  return EXIT.ok
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
        if (options.json) printJson(list)
        else printDeployments(list)
      } else {
        const d = await client.getDeployment(deploymentName)
        if (options.json) printJson(d)
        else printDeployment(d)
      }
      return EXIT.ok
    }))

  change(deploy, 'current <buildId>', 'make a version current: new runs go to it; runs pinned to the old one finish there')
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls now (new runs wait until one does)')
    .action(action(async (buildId: string, options: DeployOptions) => {
      const d = await clientOf(options).setCurrentVersion(deploymentOf(options), buildId, { allowNoPollers: options.allowNoPollers })
      return done(d, options, `Version ${buildId} of ${d.deploymentName} is current.`)
    }))

  change(deploy, 'ramp <buildId> <percent>', 'send <percent> (0 < p ≤ 100) of new runs to a version, the rest to the current one')
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls now (new runs wait until one does)')
    .action(action(async (buildId: string, percentArg: string, options: DeployOptions) => {
      const d = await clientOf(options).rampVersion(deploymentOf(options), buildId, percent(percentArg), { allowNoPollers: options.allowNoPollers })
      return done(d, options, `Version ${buildId} of ${d.deploymentName} receives ${d.ramping?.percentage ?? 0}% of new runs.`)
    }))

  change(deploy, 'stop-ramp', 'stop a ramp: every new run goes to the current version')
    .action(action(async (options: DeployOptions) => {
      const d = await clientOf(options).stopRamp(deploymentOf(options))
      return done(d, options, `No version of ${d.deploymentName} is ramping.`)
    }))

  change(deploy, 'rollback', 'make the version that was current before the current one current again')
    .option('--to <buildId>', 'this version instead')
    .option('--allow-no-pollers', 'even when none of the version\'s workers polls now (new runs wait until one does)')
    .action(action(async (options: DeployOptions & { to?: string }) => {
      const d = await clientOf(options).rollback(deploymentOf(options), { buildId: options.to, allowNoPollers: options.allowNoPollers })
      return done(d, options, `Rolled back: version ${nameOf(d.current)} of ${d.deploymentName} is current.`)
    }))
}
