/**
 * Reads the static export table of one ES module with a real parser (@swc/core, already a
 * dependency of Temporal's bundler). Nothing is executed. Forms that cannot be followed without
 * running code are reported, so the worker can warn naming the file.
 */
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { parseSync, type Declaration, type ModuleItem } from '@swc/core'

export interface ModuleExports {
  /** Names whose value is created in this module. */
  local: Set<string>
  /** Exported name → the module specifier and the name imported from it. */
  reexports: Map<string, { specifier: string, name: string }>
  /** Specifiers of `export * from '…'`. */
  stars: string[]
  /** Constructs not followed, in words (namespace re-exports, CommonJS, dynamic imports). */
  unfollowed: string[]
  /** Specifiers imported for types only (`import type …`): how workflow files reach step modules. */
  typeImports: string[]
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx'])

function declaredNames (declaration: Declaration): string[] {
  switch (declaration.type) {
    case 'FunctionDeclaration':
    case 'ClassDeclaration':
      return [declaration.identifier.value]
    case 'VariableDeclaration':
      return declaration.declarations.flatMap((d) => d.id.type === 'Identifier' ? [d.id.value] : [])
    default:
      return [] // interfaces, type aliases, enums, namespaces: types or never workflows
  }
}

type Node = { type?: string, value?: string, callee?: Node, object?: Node, property?: Node, left?: Node }

/** `exports.x = …`, `module.exports = …`, `module.exports.x = …` */
function isCommonJsTarget (target: Node | undefined): boolean {
  let node = target
  while (node?.type === 'MemberExpression') {
    const { object, property } = node
    if (object?.type === 'Identifier' && object.value === 'exports') return true
    if (object?.type === 'Identifier' && object.value === 'module' && property?.value === 'exports') return true
    node = object
  }
  return false
}

/** Finds `import(…)`, `require(…)` and CommonJS export assignments anywhere in the tree. */
function findUnfollowable (node: unknown, found: Set<string>): void {
  if (typeof node !== 'object' || node === null) return
  const n = node as Node
  if (n.type === 'CallExpression' && n.callee?.type === 'Import') found.add('a dynamic import()')
  if (n.type === 'CallExpression' && n.callee?.type === 'Identifier' && n.callee.value === 'require') found.add('a CommonJS require()')
  if (n.type === 'AssignmentExpression' && isCommonJsTarget(n.left)) found.add('CommonJS exports')
  for (const value of Object.values(node)) findUnfollowable(value, found)
}

export function readModuleExports (file: string): ModuleExports {
  const ts = TS_EXTENSIONS.has(extname(file))
  const program = parseSync(readFileSync(file, 'utf8'), ts
    ? { syntax: 'typescript', tsx: extname(file) === '.tsx' }
    : { syntax: 'ecmascript', jsx: false })
  const result: ModuleExports = { local: new Set(), reexports: new Map(), stars: [], unfollowed: [], typeImports: [] }
  const imported = new Map<string, { specifier: string, name: string }>()
  const namespaces = new Set<string>()

  const body: ModuleItem[] = program.body
  for (const item of body) {
    if (item.type !== 'ImportDeclaration') continue
    if (item.typeOnly || (item.specifiers.length > 0 && item.specifiers.every((s) => s.type === 'ImportSpecifier' && s.isTypeOnly))) {
      result.typeImports.push(item.source.value)
      continue
    }
    for (const s of item.specifiers) {
      if (s.type === 'ImportNamespaceSpecifier') namespaces.add(s.local.value)
      else if (s.type === 'ImportDefaultSpecifier') imported.set(s.local.value, { specifier: item.source.value, name: 'default' })
      else if (!s.isTypeOnly) imported.set(s.local.value, { specifier: item.source.value, name: s.imported?.value ?? s.local.value })
    }
  }

  for (const item of body) {
    switch (item.type) {
      case 'ExportAllDeclaration':
        result.stars.push(item.source.value)
        break
      case 'ExportDeclaration':
        for (const name of declaredNames(item.declaration)) result.local.add(name)
        break
      case 'ExportDefaultDeclaration':
        result.local.add('default')
        break
      case 'ExportDefaultExpression': {
        const e = item.expression
        const origin = e.type === 'Identifier' ? imported.get(e.value) : undefined
        if (origin) result.reexports.set('default', origin)
        else result.local.add('default')
        break
      }
      case 'TsExportAssignment':
        result.unfollowed.push('a CommonJS `export =`')
        break
      case 'ExportNamedDeclaration': {
        if (item.typeOnly) break
        for (const s of item.specifiers) {
          if (s.type === 'ExportNamespaceSpecifier') {
            result.unfollowed.push(`a namespace re-export (export * as ${s.name.value})`)
          } else if (s.type === 'ExportDefaultSpecifier') {
            if (item.source) result.reexports.set(s.exported.value, { specifier: item.source.value, name: 'default' })
          } else if (!s.isTypeOnly) {
            const orig = s.orig.value
            const exported = s.exported?.value ?? orig
            if (item.source) result.reexports.set(exported, { specifier: item.source.value, name: orig })
            else if (namespaces.has(orig)) result.unfollowed.push(`a re-exported namespace import (${orig})`)
            else if (imported.has(orig)) result.reexports.set(exported, imported.get(orig)!)
            else result.local.add(exported)
          }
        }
        break
      }
      default:
        break
    }
  }
  const dynamic = new Set<string>()
  findUnfollowable(body, dynamic)
  result.unfollowed.push(...dynamic)
  return result
}
