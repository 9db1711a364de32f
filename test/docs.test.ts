/**
 * The docs against the code (docs/index.md, "How these pages are checked"): every fenced block of
 * README.md and docs/*.md is marked; the `runs` blocks run against the test stack's API; the
 * `excerpt` blocks are the repository's code; and everywhere, marked as illustration or not, each
 * `flowport` command and flag, each route, each setting and each relative link names something that
 * exists. A renamed flag, route, setting or heading fails here.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { promisify } from 'node:util'
import { ConfigSchema } from '../schemas/config.js'
import { WorkerEnvSchema } from '@flowport/worker/env'
import { anchorsOf, codeSpans, linksOf, readPage, shellCommands, type Block, type Page } from './helpers/markdown.js'
import { launcher, listening } from './helpers/flowport-cli.js'
import { build } from './helpers/app.js'

const run = promisify(execFile)

const CHECKED = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]
const pages = CHECKED.map(readPage)
const blocks = pages.flatMap((p) => p.blocks)
const where = (b: { file: string, line: number }) => `${b.file}:${b.line}`

/** Every piece of text a command, route or setting may be named in: code spans of prose, and blocks' lines. */
function snippets (page: Page): Array<{ file: string, line: number, text: string, shell: boolean }> {
  const out: Array<{ file: string, line: number, text: string, shell: boolean }> = []
  for (const { line, text } of page.prose) for (const span of codeSpans(text)) out.push({ file: page.file, line, text: span, shell: false })
  for (const b of page.blocks) {
    const shell = ['sh', 'bash', 'shell', ''].includes(b.lang)
    const lines = shell ? shellCommands(b.text) : b.text.split('\n')
    for (const text of lines) out.push({ file: b.file, line: b.line, text, shell })
  }
  return out
}
const allSnippets = pages.flatMap(snippets)

t.test('README keeps the quick start CI runs: npm start and npm test', async (t) => {
  const readme = readFileSync('README.md', 'utf8')
  t.ok(readme.split('\n').length < 400, 'README.md is under 400 lines')
  const start = blocks.find((b) => b.file === 'README.md' && /^npm start\b/m.test(b.text) && /^npm test\b/m.test(b.text) && /^npm install\b/m.test(b.text))
  t.ok(start, 'a block with npm install, npm start and npm test (.ci/run runs them)')
})

t.test('docs/index.md lists every page, and the README links it', async (t) => {
  const listed = new Set(linksOf(readPage('docs/index.md')).map((l) => l.target.split('#')[0]))
  const unlisted = CHECKED.filter((f) => f.startsWith('docs/') && f !== 'docs/index.md' && !listed.has(f.slice('docs/'.length)))
  t.same(unlisted, [], 'every page of docs/ is in the index')
  t.ok(linksOf(readPage('README.md')).some((l) => l.target === 'docs/index.md'), 'README.md links the index')
})

t.test('every fenced block says what it is: runs, excerpt or illustration', async (t) => {
  const unmarked = blocks.filter((b) => b.marker === null).map(where)
  t.same(unmarked, [], 'each block has <!-- runs -->, <!-- excerpt: path --> or <!-- illustration --> on the line before it')
  t.ok(blocks.some((b) => b.marker?.kind === 'runs'), 'some blocks run')
  for (const b of blocks.filter((b) => b.marker?.kind === 'runs')) t.ok(['sh', 'bash'].includes(b.lang), `${where(b)}: a runnable block is a shell block`)
})

t.test('excerpts are the code of the file they name', async (t) => {
  for (const b of blocks) {
    if (b.marker?.kind !== 'excerpt') continue
    const file = b.marker.path
    if (!existsSync(file)) { t.fail(`${where(b)}: ${file} does not exist`); continue }
    const source = readFileSync(file, 'utf8').split('\n').map((l) => l.trim())
    let at = 0
    const missing: string[] = []
    for (const line of b.text.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
      const found = source.indexOf(line, at)
      if (found === -1) missing.push(line)
      else at = found + 1
    }
    t.same(missing, [], `${where(b)}: every line is in ${file}, in order`)
  }
})

t.test('relative links and their anchors resolve', async (t) => {
  const anchors = new Map<string, Set<string>>()
  const anchorsIn = (file: string) => {
    if (!anchors.has(file)) anchors.set(file, anchorsOf(readPage(file)))
    return anchors.get(file)!
  }
  const broken: string[] = []
  for (const page of [...pages, ...['worker', 'core', 'client'].map((p) => readPage(`${p}/README.md`))]) {
    for (const { line, target } of linksOf(page)) {
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const file = path === '' ? page.file : normalize(join(dirname(page.file), decodeURIComponent(path)))
      if (!existsSync(file)) { broken.push(`${page.file}:${line}: ${target} (no such file)`); continue }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(`${page.file}:${line}: ${target} (no such heading)`)
    }
  }
  t.same(broken, [], 'no broken link')
})

t.test('every SERVICE_ and ENGINE_ setting the docs name is declared by the API or the worker', async (t) => {
  const declared = new Set([...Object.keys(ConfigSchema.properties), ...Object.keys(WorkerEnvSchema.properties)])
  // Read outside the schemas, before them: the credentials file's path (worker and API alike).
  const readBy: Record<string, string> = { SERVICE_CREDENTIALS_FILE: 'core/src/credentials/location.ts' }
  for (const [name, file] of Object.entries(readBy)) {
    t.match(readFileSync(file, 'utf8'), name, `${file} reads ${name}`)
    declared.add(name)
  }
  // Per-environment names: SERVICE_CREDENTIALS_KEY_<ENV> (docs/credentials.md).
  const patterns = [/^SERVICE_CREDENTIALS_KEY_[A-Z0-9_]+$/]
  const unknown = new Set<string>()
  const texts = pages.flatMap((p) => [...p.prose.map((l) => ({ file: p.file, line: l.line, text: l.text })), ...p.blocks.map((b) => ({ file: b.file, line: b.line, text: b.text }))])
  for (const { file, line, text } of texts) {
    for (const m of text.matchAll(/\b((?:SERVICE|ENGINE)_[A-Z0-9_]*)(\*|<)?/g)) {
      const name = m[1]!
      const prefix = m[2] !== undefined || name.endsWith('_')
      const known = prefix
        ? [...declared].some((d) => d.startsWith(name)) || name === 'SERVICE_CREDENTIALS_KEY_'
        : declared.has(name) || patterns.some((p) => p.test(name))
      if (!known) unknown.add(`${file}:${line}: ${name}${m[2] ?? ''}`)
    }
  }
  t.same([...unknown], [], 'no setting the schemas do not declare')
})

t.test('every FLOWPORT_, TEMPORAL_, OTEL_ and VERSITYGW_ variable the docs name is read somewhere in the code or the deploy files', async (t) => {
  const declared = new Set([...Object.keys(ConfigSchema.properties), ...Object.keys(WorkerEnvSchema.properties)])
  const sources = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (['node_modules', 'dist', 'generated'].includes(e.name) ? [] : sources(join(dir, e.name))) : /\.(ts|js|ya?ml)$/.test(e.name) ? [join(dir, e.name)] : [])
  const code = ['cli', 'core/src', 'worker/src', 'lib', 'plugins', 'scripts', 'test/helpers', 'client/src', 'bin', 'deploy', 'bench']
    .flatMap(sources).concat(['Dockerfile', '.ci/run', 'package.json']).map((f) => readFileSync(f, 'utf8')).join('\n')
  const unknown = new Set<string>()
  const texts = pages.flatMap((p) => [...p.prose.map((l) => ({ file: p.file, line: l.line, text: l.text })), ...p.blocks.map((b) => ({ file: b.file, line: b.line, text: b.text }))])
  for (const { file, line, text } of texts) {
    for (const m of text.matchAll(/\b((?:FLOWPORT|TEMPORAL|OTEL|VERSITYGW)_[A-Z0-9_]*[A-Z0-9])\b/g)) {
      if (!declared.has(m[1]!) && !code.includes(m[1]!)) unknown.add(`${file}:${line}: ${m[1]}`)
    }
  }
  t.same([...unknown], [], 'no variable nothing reads')
})

/** Routes the API serves outside its OpenAPI document (checked below to answer). */
const UNDOCUMENTED = ['/metrics', '/ui', '/ui/', '/docs', '/openapi.json']

t.test('every route the docs name is one the API serves', async (t) => {
  const app = await build(t)
  const spec = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
  const routes = Object.entries(spec.paths).map(([path, ops]) => ({
    path,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    methods: new Set(Object.keys(ops).map((m) => m.toUpperCase()))
  }))
  for (const path of UNDOCUMENTED) {
    t.not((await app.inject({ method: 'GET', url: path })).statusCode, 404, `GET ${path} is served`)
  }

  const named = new Map<string, string>()
  const name = (method: string, raw: string, at: string) => {
    if (/…|\.\.\./.test(raw)) return
    const path = raw.split('?')[0]!.replace(/[.:,;]+$/, '')
    // `/workflow/{id}[/runs/{rid}]/status` names both forms, `/signal|update/{name}` both routes.
    let forms = path.includes('[') ? [path.replace(/\[[^\]]*\]/g, ''), path.replace(/\[([^\]]*)\]/g, '$1')] : [path]
    forms = forms.flatMap((form) => {
      const alternatives = /([\w-]+(?:\|[\w-]+)+)/.exec(form)
      return alternatives === null ? [form] : alternatives[1]!.split('|').map((a) => form.replace(alternatives[1]!, a))
    })
    for (const form of forms) if (!named.has(`${method} ${form}`)) named.set(`${method} ${form}`, at)
  }
  for (const page of pages) {
    // Code spans are read below, whole (a table's `|` is not in them).
    for (const { line, text } of page.prose) for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s|,)]*)/g)) name(m[1]!, m[2]!, `${page.file}:${line}`)
  }
  for (const s of allSnippets) {
    for (const m of s.text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s,)'"]*)/g)) name(m[1]!, m[2]!, `${s.file}:${s.line}`)
    if (!s.shell || !/\bcurl\b/.test(s.text)) continue
    const url = /(?:https?:\/\/)?(?:localhost|127\.0\.0\.1):3001(\/[^\s'")]*)/.exec(s.text)
    if (url === null) continue
    const method = /-X\s*([A-Z]+)/.exec(s.text)?.[1] ?? (/\s(-d|--data\S*)\s/.test(s.text) ? 'POST' : 'GET')
    name(method, url[1]!, `${s.file}:${s.line}`)
  }
  t.ok(named.size > 50, `the docs name routes (${named.size})`)
  const unknown: string[] = []
  for (const [route, at] of named) {
    const [method, path] = route.split(' ') as [string, string]
    if (UNDOCUMENTED.includes(path) && method === 'GET') continue
    const match = routes.find((r) => r.pattern.test(path))
    if (match === undefined) unknown.push(`${at}: ${route} (no such path)`)
    else if (!match.methods.has(method)) unknown.push(`${at}: ${route} (${match.path} takes ${[...match.methods].join(', ')})`)
  }
  t.same(unknown, [], 'every route is in the served OpenAPI document')
})

/** `flowport <command> [<subcommand>] … --flag` as the docs write it. */
interface CommandUse { at: string, command: string, words: string[], flags: string[] }

function commandUses (): CommandUse[] {
  const uses: CommandUse[] = []
  for (const s of allSnippets) {
    for (const m of s.text.matchAll(/\bflowport(?:\.js|\.ts)? ([a-z][\w-]*)((?: (?![|;>&])\S+)*)/g)) {
      const rest = m[2]!.split(/\s(?:\||;|>|&&)\s/)[0]!.trim().split(/\s+/).filter((w) => w !== '')
      uses.push({
        at: `${s.file}:${s.line}`,
        command: m[1]!,
        words: rest.filter((w) => /^[a-z][\w-]*$/.test(w)),
        flags: rest.flatMap((w) => /^\[?(--[a-z][a-z0-9-]*)/.exec(w)?.[1] ?? [])
      })
    }
  }
  return uses
}

/** `flowport … --help` of this checkout: what it lists (a few processes at a time). */
const helps = new Map<string, Promise<string>>()
let running = 0
const waiting: Array<() => void> = []
async function help (args: string[]): Promise<string> {
  const key = args.join(' ')
  if (!helps.has(key)) {
    helps.set(key, (async () => {
      if (running >= 4) await new Promise<void>((resolve) => waiting.push(resolve))
      running++
      try {
        const { stdout } = await run(process.execPath, [launcher, ...args], { timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } })
          .catch((err: { stdout?: string, stderr?: string }) => ({ stdout: `${err.stdout ?? ''}${err.stderr ?? ''}` }))
        return stdout
      } finally {
        running--
        waiting.shift()?.()
      }
    })())
  }
  return await helps.get(key)!
}
const subcommandsOf = (text: string) => new Set([...(text.split(/^Commands:$/m)[1] ?? '').matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!))
const flagsOf = (text: string) => new Set([...text.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]))

t.test('every flowport command and flag the docs name is one the CLI knows', async (t) => {
  const uses = commandUses()
  t.ok(uses.length > 50, `the docs name flowport commands (${uses.length})`)
  const top = subcommandsOf(await help(['--help']))
  t.ok(top.has('run') && top.has('api'), 'the CLI lists its commands')
  // Every command's help at once, then every subcommand's.
  const parentArgs = (command: string) => command === 'credentials' ? ['credentials', 'help'] : [command, '--help']
  const parents = await Promise.all([...new Set(uses.map((u) => u.command))].filter((c) => top.has(c)).map(async (c) => [c, await help(parentArgs(c))] as const))
  await Promise.all(uses.flatMap((u) => {
    const subs = subcommandsOf(new Map(parents).get(u.command) ?? '')
    return u.words[0] !== undefined && subs.has(u.words[0]) ? [help([u.command, u.words[0], '--help'])] : []
  }))
  const problems: string[] = []
  for (const use of uses) {
    if (!top.has(use.command)) { problems.push(`${use.at}: flowport ${use.command} (no such command)`); continue }
    // `credentials` parses its own arguments; `flowport credentials help` is its usage.
    const parent = await help(parentArgs(use.command))
    const subs = use.command === 'credentials' ? new Set<string>() : subcommandsOf(parent)
    const sub = subs.size > 0 && use.words[0] !== undefined && subs.has(use.words[0]) ? use.words[0] : undefined
    if (subs.size > 0 && sub === undefined && use.words[0] !== undefined && !use.words[0].startsWith('help')) {
      problems.push(`${use.at}: flowport ${use.command} ${use.words[0]} (${use.command} has ${[...subs].join(', ')})`)
      continue
    }
    const known = flagsOf(sub === undefined ? parent : await help([use.command, sub, '--help']))
    for (const flag of use.flags) if (!known.has(flag)) problems.push(`${use.at}: flowport ${use.command}${sub ? ` ${sub}` : ''} ${flag} (not in its --help)`)
  }
  t.same(problems, [], 'no unknown command or flag')
})

t.test('the runnable blocks run against the test stack', async (t) => {
  const { url, port } = await listening(t)
  for (const b of blocks.filter((b): b is Block => b.marker?.kind === 'runs')) {
    const script = [
      'set -euo pipefail',
      // An HTTP error fails the block, as a user would see it fail.
      'curl () { command curl --fail-with-body "$@"; }',
      // `npx flowport` is this checkout's CLI (what npx runs after npm install).
      `npx () { if [ "$1" = flowport ]; then shift; node ${JSON.stringify(launcher)} "$@"; else command npx "$@"; fi; }`,
      b.text.replaceAll(/(?:localhost|127\.0\.0\.1):3001/g, `127.0.0.1:${port}`)
    ].join('\n')
    const result = await run('bash', ['-c', script], { timeout: 180_000, env: { ...process.env, FLOWPORT_URL: url, NO_COLOR: '1' } })
      .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: { code?: number, stdout?: string, stderr?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' }))
    t.equal(result.code, 0, `${where(b)} runs`, { stdout: result.stdout, stderr: result.stderr })
    if (b.file === 'README.md' && b.text.includes('/workflow/run')) t.match(result.stdout, /Hello, Ada!/, `${where(b)}: the greeting comes back`)
    if (b.file === 'README.md' && b.text.includes('/trace-log')) t.match(result.stdout, /"name": "greet"/, `${where(b)}: the trace names the step`)
  }
})
