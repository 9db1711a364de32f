/**
 * `flowport catalog publish|show|remove`: catalogs declared in a file for workers written without
 * Flowport's SDK (docs/any-worker.md). They talk to the engine, as a worker does, not to the API.
 * Exit codes: 0 done, 1 refused (the catalog id belongs to a Flowport worker, nothing to show or
 * remove), 2 a file with problems or a bad setting, 3 the engine cannot be reached.
 */
import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import { Type } from '@sinclair/typebox'
import { Client } from '@temporalio/client'
import { stringify } from 'yaml'
import { EngineEnvProperties, loadSettings } from '@flowport/core/settings'
import { connectEngine, EngineUnreachableError } from '../engine.js'
import { CatalogFileError, readCatalogFile } from './file.js'
import { CatalogConflictError, publishDeclaredCatalog, readPublishedCatalog, removeDeclaredCatalog } from './publish.js'

const EXIT_REFUSED = 1
const EXIT_USAGE = 2
const EXIT_ENGINE = 3

const SETTINGS = `
Settings (the engine's, from the environment, as a worker reads them):
  TEMPORAL_ADDRESS (localhost:7233), TEMPORAL_NAMESPACE (default), TEMPORAL_API_KEY,
  TEMPORAL_TLS, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS_CA_PATH, TEMPORAL_TLS_CERT_PATH, TEMPORAL_TLS_KEY_PATH`

class UsageError extends Error {}

/** Runs `action` with a client of the engine the settings name; its errors become an exit code and a message. */
async function withEngine (action: (client: Client) => Promise<void>): Promise<void> {
  try {
    const settings = loadSettings(Type.Object(EngineEnvProperties), process.env, (message) => new UsageError(message))
    const connection = await connectEngine(settings)
    try {
      await action(new Client({ connection, namespace: settings.TEMPORAL_NAMESPACE }))
    } finally {
      await connection.close()
    }
  } catch (err) {
    const codes: Array<[new (...args: never[]) => Error, number]> = [[UsageError, EXIT_USAGE], [CatalogFileError, EXIT_USAGE], [CatalogConflictError, EXIT_REFUSED], [EngineUnreachableError, EXIT_ENGINE]]
    const code = codes.find(([type]) => err instanceof type)?.[1]
    if (code === undefined) throw err
    console.error((err as Error).message)
    process.exitCode = code
  }
}

function readFile (file: string): ReturnType<typeof readCatalogFile> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${(err as Error).message}`)
  }
  return readCatalogFile(text, file)
}

/** `catalog <word>` is also the client's command showing workflow <word> (cli/client/list.ts). */
const NOT_A_WORKFLOW = (word: string) =>
  `(flowport catalog ${word} is the catalog-file command, on the engine; to show a workflow named ${word} through the API: flowport catalog --catalog <id> ${word})`

/** A subcommand of one argument, with the engine's settings in its help. */
function subcommand (parent: Command, name: string, argument: string, description: string): Command {
  return parent.command(name).description(description).argument(argument).showHelpAfterError(NOT_A_WORKFLOW(name)).addHelpText('after', SETTINGS)
}

export function catalogCommand (): Command {
  // Its subcommands inherit the override (addCommand does not pass the program's on): a usage error exits 2, as the docs say.
  const catalog = new Command('catalog').exitOverride().description('publish|show|remove a catalog declared in a file, for workers without Flowport\'s SDK (docs/any-worker.md)')
  subcommand(catalog, 'publish', '<file>', 'validate a catalog file (YAML or JSON) and publish it: the API serves its workflows on the catalog\'s task queue; publishing again replaces it')
    .option('--check', 'only validate the file')
    .action(async (file: string, options: { check?: boolean }) => {
      if (options.check === true) {
        try {
          const { catalog } = readFile(file)
          console.log(`${file}: catalog ${catalog.catalog}, ${catalog.workflows.length} workflow(s): ${catalog.workflows.map((w) => w.name).join(', ')}`)
        } catch (err) {
          if (!(err instanceof CatalogFileError || err instanceof UsageError)) throw err
          console.error(err.message)
          process.exitCode = EXIT_USAGE
        }
        return
      }
      await withEngine(async (client) => {
        const { catalog, hash } = readFile(file)
        const { outcome } = await publishDeclaredCatalog(client, catalog, hash)
        const what = outcome === 'current' ? 'unchanged (already published)' : outcome
        console.log(`catalog ${catalog.catalog} ${what}: ${catalog.workflows.map((w) => w.name).join(', ')}`)
      })
    })
  subcommand(catalog, 'show', '<catalogId>', 'print the catalog published under an id (declared or a Flowport worker\'s), as YAML')
    .action(async (catalogId: string) => await withEngine(async (client) => {
      const published = await readPublishedCatalog(client, catalogId)
      if (published === null) throw new CatalogConflictError(`Catalog ${catalogId} is not published`)
      const by = published.publishedBy === 'file' ? 'a catalog file (flowport catalog publish)' : 'a Flowport worker'
      console.log(`# catalog ${catalogId}, published by ${by} at ${published.catalog.publishedAt} (run ${published.runId})`)
      process.stdout.write(stringify(published.catalog))
    }))
  subcommand(catalog, 'remove', '<catalogId>', 'unpublish a declared catalog: the API answers 503 for its workflows until it is published again (runs are untouched)')
    .action(async (catalogId: string) => await withEngine(async (client) => {
      await removeDeclaredCatalog(client, catalogId)
      console.log(`catalog ${catalogId} removed`)
    }))
  return catalog
}
