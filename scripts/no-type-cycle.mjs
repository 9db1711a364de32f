/**
 * ESLint rule `flowport/no-type-cycle`: an import cycle is refused even when some of its imports
 * are type-only. import-x/no-cycle skips type imports, so two concepts that import each other's
 * types (a service's interface one way, a helper the other) passed it; a cycle made only of value
 * imports is left to import-x/no-cycle, which reports it already.
 *
 * Concepts (the folders under plugins/app/) are held to the same at their own level: two that
 * import each other in any files, in any kind of import, are refused even when no file cycle
 * joins them (catalogs/index.ts once imported runs' history reads while runs took catalogs' type).
 *
 * The graph is every static import and re-export among our files (workspace packages resolved to
 * their sources, as the `flowport-source` condition does), read once per lint run with
 * TypeScript's parser; dynamic `import()` is how code breaks a cycle on purpose, so it is no edge.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

const SKIP = new Set(['node_modules', 'dist', '.git', '.flowport', '.tap', 'coverage', 'conformance'])

function sourceFiles (dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) sourceFiles(path, found)
    else if (/\.(ts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path)
  }
  return found
}

/** `@flowport/<package>/<entry>` → the source file its package.json names for `flowport-source`. */
function workspaceEntries (root) {
  const entries = new Map()
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  for (const folder of workspaces) {
    const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'))
    for (const [entry, targets] of Object.entries(manifest.exports ?? {})) {
      const source = typeof targets === 'object' && targets['flowport-source']
      if (source) entries.set(join(manifest.name, entry), resolve(root, folder, source))
    }
  }
  return entries
}

function resolveImport (from, specifier, entries) {
  if (!specifier.startsWith('.')) return entries.get(specifier)
  const base = resolve(dirname(from), specifier)
  const stem = base.replace(/\.(js|mjs)$/, '')
  return [`${stem}.ts`, base, join(base, 'index.ts')].find((candidate) => existsSync(candidate) && candidate.match(/\.(ts|mjs|js)$/))
}

/** Each static import of a file: where it points and whether it brings types only. */
function importsOf (path, entries) {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found = []
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue
    if (!statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue
    const target = resolveImport(path, statement.moduleSpecifier.text, entries)
    if (target) found.push({ target, typeOnly: typeOnly(statement) })
  }
  return found
}

function typeOnly (statement) {
  if (ts.isExportDeclaration(statement)) {
    return statement.isTypeOnly || (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause) && statement.exportClause.elements.length > 0 && statement.exportClause.elements.every((e) => e.isTypeOnly))
  }
  const clause = statement.importClause
  if (!clause) return false
  if (clause.isTypeOnly) return true
  const named = clause.namedBindings
  return !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)
}

/** Tarjan's strongly connected components: node → component id. */
function components (graph, keep) {
  const index = new Map()
  const low = new Map()
  const component = new Map()
  const stack = []
  let next = 0
  const visit = (node) => {
    index.set(node, next); low.set(node, next); next++
    stack.push(node)
    for (const edge of graph.get(node) ?? []) {
      if (!keep(edge)) continue
      if (!index.has(edge.target)) {
        visit(edge.target)
        low.set(node, Math.min(low.get(node), low.get(edge.target)))
      } else if (!component.has(edge.target)) {
        low.set(node, Math.min(low.get(node), index.get(edge.target)))
      }
    }
    if (low.get(node) === index.get(node)) {
      let member
      do { member = stack.pop(); component.set(member, node) } while (member !== node)
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return component
}

const CONCEPTS = 'plugins/app/'

/** The concept a file belongs to (the folder under plugins/app/), or undefined. */
function conceptOf (root, path) {
  const inside = relative(root, path)
  return inside.startsWith(CONCEPTS) && inside.split('/').length > 3 ? inside.split('/')[2] : undefined
}

/** concept → the concepts its files import. */
function conceptGraph (root, graph) {
  const concepts = new Map()
  for (const [path, imports] of graph) {
    const from = conceptOf(root, path)
    if (from === undefined) continue
    for (const { target } of imports) {
      const to = conceptOf(root, target)
      if (to !== undefined && to !== from) concepts.set(from, (concepts.get(from) ?? new Set()).add(to))
    }
  }
  return concepts
}

/** The concepts from `start` back to `end`, or undefined when there is no way back. */
function conceptPath (concepts, start, end) {
  const previous = new Map([[start, null]])
  const queue = [start]
  while (queue.length) {
    const node = queue.shift()
    if (node === end) {
      const path = []
      for (let at = end; at !== null; at = previous.get(at)) path.unshift(at)
      return path
    }
    for (const next of concepts.get(node) ?? []) if (!previous.has(next)) { previous.set(next, node); queue.push(next) }
  }
  return undefined
}

const analyses = new Map()

function analyse (root) {
  if (!analyses.has(root)) {
    const entries = workspaceEntries(root)
    const graph = new Map(sourceFiles(root).map((path) => [path, importsOf(path, entries)]))
    analyses.set(root, { entries, graph, concepts: conceptGraph(root, graph), all: components(graph, () => true), values: components(graph, (e) => !e.typeOnly) })
  }
  return analyses.get(root)
}

/** The shortest way back from `start` to `end`, for the message. */
function pathBack (graph, start, end) {
  const previous = new Map([[start, null]])
  const queue = [start]
  while (queue.length) {
    const node = queue.shift()
    if (node === end) break
    for (const { target } of graph.get(node) ?? []) {
      if (!previous.has(target)) { previous.set(target, node); queue.push(target) }
    }
  }
  const path = []
  for (let node = end; node !== null && node !== undefined; node = previous.get(node)) path.unshift(node)
  return path
}

export const noTypeCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse an import cycle that goes through a type-only import, and concepts that import each other.' },
    messages: {
      cycle: 'Import cycle through a type-only import: {{path}}',
      conceptCycle: 'Concepts import each other: {{path}}'
    },
    schema: []
  },
  create (context) {
    const root = context.cwd
    const file = context.physicalFilename
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return
      const { entries, graph, concepts, all, values } = analyse(root)
      if (!graph.has(file)) return
      const target = resolveImport(file, node.source.value, entries)
      if (!target) return
      const [from, to] = [conceptOf(root, file), conceptOf(root, target)]
      const back = from !== undefined && to !== undefined && from !== to ? conceptPath(concepts, to, from) : undefined
      if (back) context.report({ node, messageId: 'conceptCycle', data: { path: [from, ...back].join(' → ') } })
      if (all.get(target) !== all.get(file)) return
      // A cycle of value imports only: import-x/no-cycle reports it.
      if (values.get(target) === values.get(file)) return
      const path = [file, ...pathBack(graph, target, file)].map((p) => relative(root, p)).join(' → ')
      context.report({ node, messageId: 'cycle', data: { path } })
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check }
  }
}

export default { rules: { 'no-type-cycle': noTypeCycle } }
