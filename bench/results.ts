/**
 * bench/RESULTS.md is shared by the benchmarks: each owns one section, between
 * `<!-- bench:<name> -->` and `<!-- /bench:<name> -->`, with the machine note of its own run.
 * Writing a section replaces that section only; the others stay as their last run left them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { resolve } from 'node:path'

/** Sections in the order they appear in the file. */
export const SECTIONS = ['first-start', 'latency', 'cpu-per-run', 'cpu-profile', 'start', 'sse', 'read', 'engine-outage', 'trace', 'observability', 'payloads', 'inspector', 'cluster', 'scale'] as const
export type SectionName = typeof SECTIONS[number]

const HEADER = `# Benchmark results

Written by \`npm run bench\` (bench/run.ts); \`npm run bench -- start\` or \`npm run bench -- sse\` (or \`BENCH=start\`) runs one
benchmark and rewrites its section only, so each section carries the date and machine note of its own run.
Every run starts its own engine (\`temporal server start-dev\`, in-memory SQLite), one worker serving the examples and,
for each benchmark, a fresh API process; the benchmark's clients run in the benchmark process. All of it shares the
machine's cores, and the machine is shared with other work: figures are ratios and splits measured side by side in
one run, not absolute speeds.
`

const RESULTS = new URL('./RESULTS.md', import.meta.url)

/** One line on the machine this run measured on, with its load average now. */
export function machineNote (): string {
  return `Measured ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `Node ${process.version}; load average at the start ${loadavg().map((l) => l.toFixed(1)).join(' / ')} (the machine is shared with other work).`
}

function sectionsOf (text: string): Partial<Record<SectionName, string>> {
  const found: Partial<Record<SectionName, string>> = {}
  for (const name of SECTIONS) {
    const match = new RegExp(`<!-- bench:${name} -->\\n([\\s\\S]*?)<!-- /bench:${name} -->`).exec(text)
    if (match) found[name] = match[1]
  }
  return found
}

export function writeSection (name: SectionName, body: string, file: URL | string = process.env.BENCH_RESULTS ?? RESULTS): void {
  const sections = existsSync(file) ? sectionsOf(readFileSync(file, 'utf8')) : {}
  sections[name] = body.endsWith('\n') ? body : `${body}\n`
  const parts = SECTIONS.filter((s) => sections[s] !== undefined).map((s) => `<!-- bench:${s} -->\n${sections[s]}<!-- /bench:${s} -->\n`)
  writeFileSync(file, `${HEADER}\n${parts.join('\n')}`)
  console.log(`wrote the ${name} section of ${file instanceof URL ? 'bench/RESULTS.md' : file}`)
}

/** Everything a run measured, for a closer look than its section shows: written to a file in tmp, whose path it returns. */
export function keepFigures (name: string, figures: unknown): string {
  const file = resolve(tmpdir(), `flowport-bench-${name}.json`)
  writeFileSync(file, JSON.stringify(figures, null, 2))
  return file
}

/** A markdown table: its head, the separator line, one line per row. */
export const table = (head: string[], rows: string[]): string =>
  [`|${head.map((cell) => (cell === '' ? ' |' : ` ${cell} |`)).join('')}`, `|${head.map(() => '---|').join('')}`, ...rows].join('\n')
