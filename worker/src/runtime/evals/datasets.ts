/**
 * Datasets: the cases of a workflow's eval, one file each (YAML or JSON, its fields in
 * docs/evals.md) in the `datasets/` folder beside the workflow file. Read by the worker's cases
 * activity at each eval run (so an edited or saved dataset counts at once), and written back by
 * `flowport eval --save`, which keeps a YAML file's comments and order.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, extname, join, relative, sep } from 'node:path'
import { Type } from '@sinclair/typebox'
import { parseDocument } from 'yaml'
import type { EvalCase } from '@flowport/core/eval'
import { explain } from '../../common/validate.js'
import { nearestPackage } from '../discovery/packages.js'

const EXTENSIONS = new Set(['.yml', '.yaml', '.json'])

const DatasetFileSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  input: Type.Unknown(),
  groundTruth: Type.Optional(Type.Unknown()),
  lastOutput: Type.Optional(Type.Object({ output: Type.Unknown(), date: Type.String({ format: 'date-time' }) }))
})

/** A dataset file that cannot be read as a case; the eval run fails naming the file. */
export class DatasetError extends Error {
  override name = 'DatasetError'
}

export const datasetsDir = (workflowDir: string) => join(workflowDir, 'datasets')

/**
 * The root of the package a workflow file belongs to (the nearest folder with a package.json):
 * reports and errors name dataset files relative to it, never by a path of the worker's machine.
 */
export const packageRoot = (file: string): string => nearestPackage(dirname(file))?.root ?? dirname(file)

/** `path` relative to `root`, with forward slashes whatever the worker's platform. */
const relativeTo = (root: string, path: string): string => relative(root, path).split(sep).join('/')

function parseFile (path: string, file: string): unknown {
  const text = readFileSync(path, 'utf8')
  if (extname(file) === '.json') {
    try {
      return JSON.parse(text)
    } catch (err) {
      throw new DatasetError(`${file}: not JSON: ${(err as Error).message}`)
    }
  }
  const doc = parseDocument(text)
  if (doc.errors.length > 0) throw new DatasetError(`${file}: not YAML: ${doc.errors[0]?.message ?? ''}`)
  return doc.toJS()
}

function readCase (path: string, file: string): EvalCase {
  const data = parseFile(path, file)
  const problem = explain(DatasetFileSchema, data)
  if (problem !== undefined) throw new DatasetError(`${file}: not a dataset (name, input, groundTruth?, lastOutput?: {output, date}): ${problem}`)
  const d = data as { name?: string, input: unknown, groundTruth?: unknown, lastOutput?: { output: unknown, date: string } }
  // A YAML date may arrive as a Date: the format check passed on its string, keep the string form.
  const lastOutput = d.lastOutput === undefined ? {} : { lastOutput: { output: d.lastOutput.output, date: new Date(d.lastOutput.date).toISOString() } }
  return {
    name: d.name ?? basename(file, extname(file)),
    file,
    input: d.input,
    ...(d.groundTruth === undefined ? {} : { groundTruth: d.groundTruth }),
    ...lastOutput
  }
}

/**
 * Every case of a workflow's `datasets/` folder, by name; none when the folder does not exist.
 * Each case's `file` (and each error) names its file relative to `root`, the workflow's package.
 */
export function readDatasets (workflowDir: string, root = packageRoot(join(workflowDir, 'workflow'))): EvalCase[] {
  const dir = datasetsDir(workflowDir)
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const cases = names.filter((n) => EXTENSIONS.has(extname(n))).sort().map((n) => readCase(join(dir, n), relativeTo(root, join(dir, n))))
  const seen = new Map<string, string>()
  for (const c of cases) {
    const other = seen.get(c.name)
    if (other !== undefined) throw new DatasetError(`Dataset "${c.name}" is defined by both ${other} and ${c.file}`)
    seen.set(c.name, c.file)
  }
  return cases
}

/** Writes `output` (made at `date`) as the dataset file's cached output (`file`: its path on this machine), keeping the rest of the file. */
export function saveLastOutput (file: string, output: unknown, date: string): void {
  const lastOutput = { output, date }
  if (extname(file) === '.json') {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, `${JSON.stringify({ ...data, lastOutput }, null, 2)}\n`)
    return
  }
  const doc = parseDocument(readFileSync(file, 'utf8'))
  doc.set('lastOutput', doc.createNode(lastOutput))
  writeFileSync(file, doc.toString())
}
