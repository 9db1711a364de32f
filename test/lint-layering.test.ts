/**
 * The layering lint (eslint.config.js) on probe concepts written into plugins/app/ for the test:
 * it refuses a concept importing another concept's file that is not its face (index.ts), an
 * import cycle that goes through a type-only import, and two concepts importing each other even
 * when no file cycle joins them; an import of a face, in no cycle, passes.
 */
import t from 'tap'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'

const repo = fileURLToPath(new URL('../', import.meta.url))

t.test('sideways imports, cycles through a type import and concepts importing each other fail the lint', async (t) => {
  const tag = `lint-probe-${process.pid}`
  const folder = (name: string) => join(repo, 'plugins/app', `${tag}-${name}`)
  const write = (name: string, file: string, text: string) => writeFileSync(join(folder(name), file), text)
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
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
  // e imports d's face, and nothing imports e.
  write('e', 'user.ts', `import type { D } from '../${tag}-d/index.js'\n\nexport const e: D = { n: 2 }\n`)

  const files = [['a', 'part.ts'], ['b', 'index.ts'], ['c', 'part.ts'], ['d', 'user.ts'], ['e', 'user.ts']].map(([name, file]) => join(folder(name), file))
  const results = await new ESLint({ cwd: repo }).lintFiles(files)
  const messages = (name: string, file: string) => results.find((r) => r.filePath === join(folder(name), file))?.messages.map((m) => `${m.ruleId}: ${m.message}`) ?? []
  const p = (name: string, file: string) => `plugins/app/${tag}-${name}/${file}`

  const bIndex = messages('b', 'index.ts')
  t.ok(bIndex.some((m) => m.startsWith('boundaries/dependencies:') && m.includes(`concept="${tag}-a"`)), 'the import of a non-face file is refused')
  t.ok(bIndex.some((m) => m.startsWith('flowport/no-type-cycle: Import cycle')), 'the file cycle is refused from b')
  t.same(messages('a', 'part.ts'), [
    `flowport/no-type-cycle: Concepts import each other: ${tag}-a → ${tag}-b → ${tag}-a`,
    `flowport/no-type-cycle: Import cycle through a type-only import: ${p('a', 'part.ts')} → ${p('b', 'index.ts')} → ${p('a', 'part.ts')}`
  ], 'the file cycle is refused from a, with its path; the type import of b\'s face is no boundaries error')

  t.same(messages('c', 'part.ts'), [`flowport/no-type-cycle: Concepts import each other: ${tag}-c → ${tag}-d → ${tag}-c`], 'concepts importing each other through their faces are refused')
  t.same(messages('d', 'user.ts'), [`flowport/no-type-cycle: Concepts import each other: ${tag}-d → ${tag}-c → ${tag}-d`], 'from both sides')
  t.same(messages('e', 'user.ts'), [], 'an import of another concept\'s face, in no cycle, passes')
})
