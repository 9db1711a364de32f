/**
 * The layering lint (eslint.config.js) on the cross-cutting concerns' folders, with probe files
 * written for the test: a concern's schema.ts is the wire (schemas/ may import it, it may import
 * no lib/ or plugin code), concepts and routes may use a concern's helpers, and a route takes of
 * the access concept only its route face (route-access.ts).
 */
import t from 'tap'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'

const repo = fileURLToPath(new URL('../', import.meta.url))

t.test('a concern\'s schema.ts is held to what schemas/ may import; routes reach access only through route-access.ts', async (t) => {
  const tag = `lint-probe-${process.pid}`
  const concern = join(repo, 'plugins/http', tag)
  const route = join(repo, 'routes', `${tag}.ts`)
  const schema = join(repo, 'schemas', `${tag}.ts`)
  t.teardown(() => { for (const path of [concern, route, schema]) rmSync(path, { recursive: true, force: true }) })
  mkdirSync(concern)
  writeFileSync(join(concern, 'schema.ts'), "import { ApiError } from '../../../lib/api-error.js'\nimport { ruled } from '../../../schemas/common.js'\n\nexport const probe = [ApiError, ruled]\n")
  writeFileSync(join(concern, 'helper.ts'), 'export const helper = 1\n')
  writeFileSync(schema, `import { probe } from '../plugins/http/${tag}/schema.js'\n\nexport const again = probe\n`)
  writeFileSync(route, [
    `import { helper } from '../plugins/http/${tag}/helper.js'`,
    "import { access } from '../plugins/app/access/route-access.js'",
    "import { isLimited } from '../plugins/app/access/principal.js'",
    '',
    'export const probe = [helper, access, isLimited]',
    ''
  ].join('\n'))

  const files = [join(concern, 'schema.ts'), schema, route]
  const results = await new ESLint({ cwd: repo }).lintFiles(files)
  const messages = (file: string) => results.find((r) => r.filePath === file)?.messages.map((m) => `${m.line}: ${m.ruleId}`) ?? []

  t.same(messages(join(concern, 'schema.ts')), ['1: boundaries/dependencies'], 'a concern\'s schema.ts may not import lib/ (schemas/common.ts passes)')
  t.same(messages(schema), [], 'schemas/ may import a concern\'s schema.ts')
  t.same(messages(route), ['3: boundaries/dependencies'], 'a route may use a concern\'s helper and access\'s route face, not another access file')
})
