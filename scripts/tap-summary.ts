/**
 * The last line of a test command (`npm test`, `npm run test:cluster`): `N passed, N failed`, from
 * tap's final totals; .ci/run adds these lines up.
 */
export function summarize (output: string, exitCode: number): string {
  const totals = [...output.matchAll(/^# \{ (total: \d+[^}]*)\}$/gm)].pop()
  if (!totals) return `0 passed, ${exitCode === 0 ? 0 : 1} failed`
  const n = Object.fromEntries([...totals[1].matchAll(/(\w+): (\d+)/g)].map(([, k, v]) => [k, Number(v)]))
  const failed = (n.fail ?? 0) + (exitCode !== 0 && !n.fail ? 1 : 0)
  return `${n.pass ?? 0} passed, ${failed} failed${n.skip ? `, ${n.skip} skipped` : ''}${n.todo ? `, ${n.todo} todo` : ''}`
}
