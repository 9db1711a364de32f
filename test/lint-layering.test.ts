/**
 * The layering lint on probe concepts written into plugins/app/ for the test: ESLint
 * (eslint.config.js) refuses a concept importing another concept's file that is not its face
 * (index.ts); dependency-cruiser (.dependency-cruiser.mjs, the other half of `npm run lint`)
 * refuses an import cycle that goes through a type-only import and two concepts importing each
 * other even when no file cycle joins them, and takes no dynamic import() for an edge. An import of
 * a face, in no cycle, passes.
 */
import t from 'tap'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { cruise, type ICruiseResult } from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'

const repo = fileURLToPath(new URL('../', import.meta.url))

t.test('sideways imports, cycles through a type import and concepts importing each other fail the lint', async (t) => {
  const tag = `lint-probe-${process.pid}`
  const folder = (name: string) => join(repo, 'plugins/app', `${tag}-${name}`)
  const write = (name: string, file: string, text: string) => writeFileSync(join(folder(name), file), text)
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
    mkdirSync(folder(name))
    t.teardown(() => { rmSync(folder(name), { recursive: true, force: true }) })
  }
  // a's part takes a type from b's face (a face: allowed); b's face imports a's part, not a's
  // face: refused, and it closes a file cycle whose one way is a type import.
  write('a', 'index.ts', "export { part } from './part.js'\n")
  write('a', 'part.ts', `import type { Inner } from '../${tag}-b/index.js'\n\nexport const part: Inner = { n: 1 }\n`)
  write('b', 'index.ts', `import { part } from '../${tag}-a/part.js'\n\nexport interface Inner { n: number }\nexport const again = part\n`)
  // c and d import only each other's faces and no file cycle joins them, but the concepts import each other.
  write('c', 'index.ts', "export { part } from './part.js'\n")
  write('c', 'part.ts', `import type { D } from '../${tag}-d/index.js'\n\nexport const part: D = { n: 1 }\n`)
  write('d', 'index.ts', 'export interface D { n: number }\n')
  write('d', 'user.ts', `import { part } from '../${tag}-c/index.js'\n\nexport const same = part\n`)
  // e imports d's face and a workspace package's entry, and nothing imports e.
  write('e', 'user.ts', `import type { D } from '../${tag}-d/index.js'\nimport { durationMs } from '@flowport/core/duration'\n\nexport const e: D = { n: durationMs('2s') }\n`)
  // f imports g's face; g reaches f only through a dynamic import(), which breaks the cycle on purpose.
  write('f', 'index.ts', `import { later } from '../${tag}-g/index.js'\n\nexport const f = later\n`)
  write('g', 'index.ts', `export async function later (): Promise<unknown> {\n  return (await import('../${tag}-f/index.js')).f\n}\n`)

  const files = [['a', 'part.ts'], ['b', 'index.ts'], ['c', 'part.ts'], ['d', 'user.ts'], ['e', 'user.ts'], ['f', 'index.ts'], ['g', 'index.ts']].map(([name, file]) => join(folder(name), file))
  const results = await new ESLint({ cwd: repo }).lintFiles(files)
  const messages = (name: string, file: string) => results.find((r) => r.filePath === join(folder(name), file))?.messages.map((m) => `${m.ruleId}: ${m.message}`) ?? []
  const bIndex = messages('b', 'index.ts')
  t.ok(bIndex.some((m) => m.startsWith('boundaries/dependencies:') && m.includes(`concept="${tag}-a"`)), 'the import of a non-face file is refused')
  t.same(bIndex.filter((m) => !m.startsWith('boundaries/dependencies:')), [], 'nothing else in ESLint')
  for (const [name, file] of [['a', 'part.ts'], ['c', 'part.ts'], ['d', 'user.ts'], ['e', 'user.ts'], ['f', 'index.ts'], ['g', 'index.ts']]) {
    t.same(messages(name, file), [], `${name}/${file}: imports of faces are no ESLint error`)
  }

  const options = await extractDepcruiseOptions(join(repo, '.dependency-cruiser.mjs'))
  const cruised = (await cruise(['.'], { ...options, baseDir: repo })).output as ICruiseResult
  const p = (name: string, file = '') => `plugins/app/${tag}-${name}${file === '' ? '' : `/${file}`}`
  const probes = cruised.summary.violations.filter((v) => v.from.includes(tag))
  const seen = probes.map((v) => `${v.rule.name}: ${[v.from, ...(v.cycle ?? []).map((c) => c.name)].join(' → ')}`).sort()
  t.same(seen, [
    `no-concept-cycle: ${p('a')} → ${p('b')} → ${p('a')}`,
    `no-concept-cycle: ${p('b')} → ${p('a')} → ${p('b')}`,
    `no-concept-cycle: ${p('c')} → ${p('d')} → ${p('c')}`,
    `no-concept-cycle: ${p('d')} → ${p('c')} → ${p('d')}`,
    `no-cycle: ${p('a', 'part.ts')} → ${p('b', 'index.ts')} → ${p('a', 'part.ts')}`
  ], 'the file cycle through a type import and both concept cycles are refused, with their paths; f and g (a dynamic import) and e are not')
  t.ok(probes.every((v) => v.rule.severity === 'error'), 'as errors')

  const e = cruised.modules.find((m) => m.source === p('e', 'user.ts'))
  t.same(e?.dependencies.map((d) => d.resolved).sort(), ['core/src/duration.ts', p('d', 'index.ts')], 'a workspace package resolves to its source (flowport-source)')
})
