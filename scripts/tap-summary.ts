/**
 * The last lines of a test command (`npm test`, `npm run test:cluster`): the failed tests with tap's
 * diagnostics, then `N passed, N failed` from tap's final totals; .ci/run adds these lines up. The
 * failures are repeated here because a CI log is often read from its end only.
 */
export function summarize (output: string, exitCode: number): string {
  const failed = failures(output)
  const head = failed.length > 0 ? ['# failed tests:', ...failed].join('\n') + '\n' : ''
  return head + totals(output, exitCode)
}

function totals (output: string, exitCode: number): string {
  const totals = [...output.matchAll(/^# \{ (total: \d+[^}]*)\}$/gm)].pop()
  if (!totals) return `0 passed, ${exitCode === 0 ? 0 : 1} failed`
  const n = Object.fromEntries([...totals[1].matchAll(/(\w+): (\d+)/g)].map(([, k, v]) => [k, Number(v)]))
  const failed = (n.fail ?? 0) + (exitCode !== 0 && !n.fail ? 1 : 0)
  return `${n.pass ?? 0} passed, ${failed} failed${n.skip ? `, ${n.skip} skipped` : ''}${n.todo ? `, ${n.todo} todo` : ''}`
}

/** Longest diagnostics block kept per failure: enough for the assertion, its values and where. */
const DIAGNOSTIC_LINES = 24

/**
 * Every `not ok` line of a TAP stream, indented as tap nests it (so a failed assertion sits under
 * its subtest and file), each followed by its YAML diagnostics block, cut to DIAGNOSTIC_LINES.
 */
export function failures (output: string): string[] {
  const lines = output.split('\n')
  const found: string[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*not ok \d+/.test(lines[i])) continue
    found.push(lines[i])
    if (lines[i + 1]?.trim() !== '---') continue
    let end = i + 1
    while (end + 1 < lines.length && lines[end].trim() !== '...') end++
    const block = lines.slice(i + 1, end + 1)
    found.push(...block.slice(0, DIAGNOSTIC_LINES))
    if (block.length > DIAGNOSTIC_LINES) found.push(`${block[0].replace('---', '')}(${block.length - DIAGNOSTIC_LINES} more lines)`)
    i = end
  }
  return found
}
