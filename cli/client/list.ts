/**
 * `runs` (newest first, across pages up to --limit; with --watch, every start and close from now
 * on, from the runs feed) and `catalog` (the workflows a catalog offers; with --openapi its typed
 * OpenAPI document, docs/catalog-openapi.md).
 */
import type { Command } from 'commander'
import type { WorkflowStatus } from '@flowport/client'
import { DEFAULT_CATALOG_ID } from '@flowport/core/settings'
import { FILTER_STATUSES } from '@flowport/core/run'
import { action, answer, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { positiveInteger } from './input.js'
import { onInterrupt } from './interrupt.js'
import { info, printJson, printTable } from './output.js'

type RunFilter = CommonOptions & { workflow?: string, status?: string, version?: string, limit: number, watch?: boolean }

/**
 * The filters of the listing and the feed. `--version <buildId>`: of the deployment named as the
 * catalog (a worker's default), unless it names its own (`<deployment>:<buildId>`).
 */
const filtersOf = ({ workflow, status, catalog, version }: RunFilter) => ({
  workflowName: workflow,
  status: status as never,
  catalog,
  version: version === undefined || version.includes(':') ? version : `${catalog ?? process.env.SERVICE_CATALOG_ID ?? DEFAULT_CATALOG_ID}:${version}`
})

/** `--watch`: one line per change (a JSON object per line with --json) until Ctrl-C (exit 130). */
async function watch (options: RunFilter): Promise<number> {
  const interrupt = onInterrupt()
  try {
    const events = clientOf(options).watchRuns({ ...filtersOf(options), signal: interrupt.signal })
    for await (const event of events) {
      if (event.event === 'expired') info(event.data.message)
      if (event.event !== 'run') continue
      const { change, at, run } = event.data
      if (options.json) console.log(JSON.stringify(event.data))
      else console.log([at, change.padEnd(7), run.workflowId, run.workflowName, run.status].join('  '))
    }
  } finally {
    interrupt.dispose()
  }
  return interrupt.fired ? EXIT.interrupted : EXIT.ok
}

export function registerList (program: Command): void {
  clientCommand(program, 'runs', 'list runs, newest first')
    .option('--workflow <name>', 'only runs of this workflow')
    .option('--status <status>', `only runs in this status (${FILTER_STATUSES.join(', ')})`)
    .option('--catalog <catalog>', 'only runs of this catalog')
    .option('--version <buildId>', 'only runs on this worker deployment version (`<deployment>:<buildId>`; a build id alone: of the catalog\'s deployment)')
    .option('--limit <n>', 'at most this many runs', positiveInteger('--limit'), 20)
    .option('--watch', 'instead of listing, print every run that starts or closes from now on (Ctrl-C stops)')
    .action(action(async (options: RunFilter) => {
      if (options.watch === true) return await watch(options)
      const runs: WorkflowStatus[] = []
      for await (const run of clientOf(options).runs({ ...filtersOf(options), pageSize: Math.min(options.limit, 1000) })) {
        runs.push(run)
        if (runs.length >= options.limit) break
      }
      return answer(options, runs, () => { printTable(['workflow id', 'workflow', 'status', 'version', 'started', 'closed'], runs.map((r) => [r.workflowId, r.workflowName, r.status, r.version?.buildId ?? '-', r.startTime ?? '-', r.closeTime ?? '-'])) })
    }))

  // --openapi rather than a subcommand: `catalog <word>` already names a workflow, and a workflow may be called `openapi`.
  clientCommand(program, 'catalog [workflow]', 'list the workflows of a catalog, or show one (its input and output schemas); catalog publish|show|remove: catalog files (flowport catalog --help)')
    .option('--catalog <catalog>', 'catalog id (default: the API\'s SERVICE_CATALOG_ID)')
    // cli/catalog/command.ts: the words are taken before this command is parsed.
    .addHelpText('after', `
Catalog files, for workers without Flowport's SDK (docs/any-worker.md; they talk to the engine, TEMPORAL_* settings):
  flowport catalog publish <file> [--check]   validate a catalog file and publish it (--check: only validate)
  flowport catalog show <catalogId>           print the catalog published under an id
  flowport catalog remove <catalogId>         unpublish a declared catalog
(A workflow named publish, show or remove is shown with an option first: flowport catalog --catalog <id> show.)`)
    .option('--openapi', 'print the API\'s OpenAPI document typed for the catalog (JSON), for a client generator')
    .action(action(async (workflow: string | undefined, options: CommonOptions & { openapi?: boolean }) => {
      if (options.openapi === true) {
        if (workflow !== undefined) throw new CliError('--openapi prints the whole catalog\'s document: name no workflow', EXIT.usage)
        printJson(await clientOf(options).catalogOpenApi(options.catalog))
        return EXIT.ok
      }
      const catalog = await clientOf(options).catalog(options.catalog)
      if (workflow !== undefined) {
        const found = catalog.workflows.find((w) => w.name === workflow || w.aliases.includes(workflow))
        if (!found) throw new CliError(`WorkflowNotFoundError: catalog ${catalog.catalog} has no workflow ${workflow}`, EXIT.usage)
        printJson(found)
      } else if (options.json) printJson(catalog)
      else if (catalog.versions === null) printTable(['workflow', 'aliases', 'steps', 'description'], catalog.workflows.map((w) => [w.name, w.aliases.join(', '), w.steps.map((s) => s.name).join(', '), w.description]))
      else {
        // Versioned: which versions whose workers poll the catalog run each workflow (the entries shown are the current version's).
        const { polling } = catalog.versions
        const versionsOf = (name: string) => polling.filter((v) => v.workflows?.includes(name) ?? false)
          .map((v) => `${v.version.buildId} (${v.state === 'ramping' ? `ramping ${v.rampPercentage ?? 0}%` : v.state})`).join(', ') || '-'
        info(`Catalog ${catalog.catalog}: worker deployment ${catalog.versions.deploymentName}, current ${catalog.versions.current?.buildId ?? 'none (unversioned workers)'}`)
        printTable(['workflow', 'versions', 'aliases', 'steps', 'description'], catalog.workflows.map((w) => [w.name, versionsOf(w.name), w.aliases.join(', '), w.steps.map((s) => s.name).join(', '), w.description]))
      }
      return EXIT.ok
    }))
}
