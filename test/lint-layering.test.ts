/**
 * The layering lint (eslint.config.js) on two probe concepts written into plugins/app/ for the
 * test: it refuses a concept importing another concept's file that is not its face (index.ts),
 * and an import cycle that goes through a type-only import, and lets an import of a face pass.
 */
import t from 'tap'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'

const repo = fileURLToPath(new URL('../', import.meta.url))

t.test('a sideways import and a cycle through a type import fail the lint; an import of a face passes', async (t) => {
  const tag = `lint-probe-${process.pid}`
  const a = join(repo, 'plugins/app', `${tag}-a`)
  const b = join(repo, 'plugins/app', `${tag}-b`)
  t.teardown(() => { rmSync(a, { recursive: true, force: true }); rmSync(b, { recursive: true, force: true }) })
  mkdirSync(a); mkdirSync(b)
  // a's part takes a type from b's face (allowed); b's face imports a's part, not a's face: that is
  // refused, and it closes a cycle whose one way is a type import.
  writeFileSync(join(a, 'index.ts'), "export { part } from './part.js'\n")
  writeFileSync(join(a, 'part.ts'), `import type { Inner } from '../${tag}-b/index.js'\n\nexport const part: Inner = { n: 1 }\n`)
  writeFileSync(join(b, 'index.ts'), `import { part } from '../${tag}-a/part.js'\n\nexport interface Inner { n: number }\nexport const again = part\n`)
  writeFileSync(join(b, 'face-user.ts'), `import { part } from '../${tag}-a/index.js'\n\nexport const same = part\n`)

  const eslint = new ESLint({ cwd: repo })
  const results = await eslint.lintFiles([join(a, 'part.ts'), join(b, 'index.ts'), join(b, 'face-user.ts')])
  const messages = (file: string) => results.find((r) => r.filePath === file)?.messages.map((m) => `${m.ruleId}: ${m.message}`) ?? []

  const bIndex = messages(join(b, 'index.ts'))
  t.ok(bIndex.some((m) => m.startsWith('boundaries/dependencies:') && m.includes(`concept="${tag}-a"`)), 'the import of a non-face file is refused')
  t.ok(bIndex.some((m) => m.startsWith('flowport/no-type-cycle:')), 'the cycle is refused from b')
  const aPart = messages(join(a, 'part.ts'))
  t.same(aPart, [`flowport/no-type-cycle: Import cycle through a type-only import: plugins/app/${tag}-a/part.ts → plugins/app/${tag}-b/index.ts → plugins/app/${tag}-a/part.ts`],
    'the cycle is refused from a, with its path; the type import of b\'s face is no boundaries error')
  // face-user.ts imports a's face and is in no cycle (nothing imports it).
  t.same(messages(join(b, 'face-user.ts')), [], 'an import of another concept\'s face passes')
})
