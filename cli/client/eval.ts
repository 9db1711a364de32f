/**
 * `flowport eval <workflow>`: starts an eval run (docs/evals.md), waits for its
 * report and prints the verdict of each case and evaluator. Exits 1 when a case failed (a required
 * evaluator failed, or the case's run did), so CI can gate on it. `--save` writes the fresh
 * outputs back into the dataset files as their cached outputs.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import type { EvalReport, EvalRun } from '@flowport/client'
import { action, clientCommand, clientOf, type CommonOptions } from './command.js'
import { CliError, EXIT } from './exit-codes.js'
import { onInterrupt } from './interrupt.js'
import { info, paint, printJson, printTable, type Style } from './output.js'

type EvalOptions = CommonOptions & { dataset?: string, cached?: boolean, save?: boolean, concurrency?: string, caseTimeout?: string }

/** A whole number for the API (which checks its range and names the field when it is out of it), or a usage error. */
function wholeNumber (flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new CliError(`${flag} takes a whole number, got ${value}`, EXIT.usage)
  return Number(value)
}

/** How often the report is asked for while the eval runs. */
const POLL_MS = 500

const VERDICT_STYLE: Record<string, Style> = { pass: 'green', partial: 'yellow', fail: 'red' }
const verdict = (v: string) => paint(VERDICT_STYLE[v] ?? 'dim', v, process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '')

/** A value for the table: numbers to three decimals (the JSON report keeps them whole). */
const valueText = (value: unknown) => value === null ? '-' : typeof value === 'number' ? String(Number(value.toFixed(3))) : String(value)

function printReport (report: EvalReport): void {
  const rows: string[][] = []
  for (const c of report.cases) {
    if (c.error !== null) rows.push([c.name, verdict(c.verdict), '-', '-', '-', '-', `run failed: ${c.error}`])
    c.results.forEach((r, i) => {
      rows.push([i === 0 ? c.name : '', i === 0 ? verdict(c.verdict) : '', r.evaluator, r.criticality, valueText(r.value), verdict(r.verdict), r.reasoning ?? ''])
    })
  }
  printTable(['case', 'verdict', 'evaluator', 'criticality', 'value', 'verdict', 'reasoning'], rows)
  const { totals } = report
  console.log(`${totals.cases} cases: ${totals.pass} pass, ${totals.partial} partial, ${totals.fail} fail; verdict ${verdict(report.verdict)}`)
  const p = report.previous
  if (p === null) console.log('no earlier eval run of these cases to compare with')
  else {
    const list = (names: string[]) => names.length === 0 ? 'none' : names.join(', ')
    const runs = new Set(p.earlier.map((e) => e.workflowId)).size
    console.log(`compared with ${runs > 1 ? `each case's latest earlier result (${runs} eval runs, latest ` : ''}${p.workflowId}${runs > 1 ? ')' : ''}: better ${list(p.better)}; worse ${list(p.worse)}; unchanged ${p.unchanged.length}${p.new.length > 0 ? `; new ${list(p.new)}` : ''}`)
  }
}

/**
 * Where package `name` is on this machine, seen from the current directory: the directory itself
 * or one above it when it is that package, else the package in a node_modules on the way up.
 */
function findPackage (name: string, from = process.cwd()): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    for (const candidate of [dir, join(dir, 'node_modules', name)]) {
      try {
        if ((JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as { name?: unknown }).name === name) return realpathSync(candidate)
      } catch {}
    }
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * Writes each fresh output into its dataset file. The report names the files relative to the
 * workflow's package (the catalog says which one): it is found from the current directory, and a
 * package or file this machine does not have is named, not guessed.
 */
async function save (options: EvalOptions, report: EvalReport): Promise<void> {
  const catalog = await clientOf(options).catalog(options.catalog)
  const entry = catalog.workflows.find((w) => w.name === report.workflow)
  const pkg = entry?.source.package
  const root = pkg === undefined ? undefined : findPackage(pkg)
  if (root === undefined) throw new CliError(`--save: package ${pkg ?? `of workflow ${report.workflow}`} is not found from ${process.cwd()}: run the command in the package, or in a project that has it in node_modules`, EXIT.usage)
  const pathOf = (file: string) => join(root, file)
  const missing = report.cases.filter((c) => !existsSync(pathOf(c.file))).map((c) => c.file)
  if (missing.length > 0) throw new CliError(`--save: the dataset files are not in ${root} (the worker read them): ${missing.join(', ')}`, EXIT.usage)
  // Imported here: every other command would pay for the YAML parser.
  const { saveLastOutput } = await import('@flowport/worker/datasets')
  let saved = 0
  for (const c of report.cases) {
    if (c.run === null || c.error !== null) continue
    saveLastOutput(pathOf(c.file), c.output, c.outputDate)
    saved++
  }
  info(`saved ${saved} output(s) as the cached ones of their datasets`)
}

async function waitForReport (options: EvalOptions, evalId: string, signal: AbortSignal): Promise<EvalRun> {
  const client = clientOf(options)
  for (;;) {
    const run = await client.evalRun(evalId, { signal })
    if (run.report !== null || run.error !== null || (run.status !== 'running' && run.status !== 'paused')) return run
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

export function registerEval (program: Command): void {
  clientCommand(program, 'eval <workflow>', 'run a workflow\'s eval over its datasets and print the verdicts (exit 1 when a case fails)')
    .option('--dataset <names>', 'only these cases (dataset names, comma-separated)')
    .option('--cached', 'evaluate the cached outputs of the datasets instead of running the workflow')
    .option('--save', 'write the fresh outputs back into the dataset files as their cached outputs')
    .option('--concurrency <n>', 'case runs open at once (default 4; docs/evals.md)')
    .option('--case-timeout <ms>', 'how long one case\'s run may take before it is ended and the case fails (default 600000)')
    .option('--catalog <catalog>', 'catalog id (default: the API\'s SERVICE_CATALOG_ID)')
    .action(action(async (workflow: string, options: EvalOptions) => {
      if (options.save === true && options.cached === true) throw new CliError('--save writes fresh outputs: it cannot go with --cached', EXIT.usage)
      const datasets = options.dataset?.split(',').map((d) => d.trim()).filter((d) => d !== '')
      const concurrency = wholeNumber('--concurrency', options.concurrency)
      const caseTimeoutMs = wholeNumber('--case-timeout', options.caseTimeout)
      const interrupt = onInterrupt()
      let run: EvalRun
      try {
        const { evalId } = await clientOf(options).startEval({
          workflowName: workflow,
          ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
          ...(datasets === undefined || datasets.length === 0 ? {} : { datasets }),
          cached: options.cached === true,
          ...(concurrency === undefined ? {} : { concurrency }),
          ...(caseTimeoutMs === undefined ? {} : { caseTimeoutMs })
        }, { signal: interrupt.signal })
        info(`eval run ${evalId}`)
        run = await waitForReport(options, evalId, interrupt.signal)
      } catch (err) {
        if (interrupt.fired) return EXIT.interrupted
        throw err
      } finally {
        interrupt.dispose()
      }
      if (run.report === null) {
        if (options.json === true) printJson(run)
        throw new CliError(`Eval run ${run.evalId} ${run.status}${run.error === null ? '' : `: ${run.error}`}`, EXIT.workflowFailed)
      }
      if (options.json === true) printJson(run)
      else printReport(run.report)
      if (options.save === true) await save(options, run.report)
      return run.report.totals.fail > 0 ? EXIT.workflowFailed : EXIT.ok
    }))
}
