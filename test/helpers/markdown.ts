/**
 * The parts of a Markdown page the docs tests check (test/docs.test.ts; the markers are
 * described in docs/index.md): fenced blocks with the marker before each, prose lines, links,
 * and the anchors GitHub gives headings.
 */
import { readFileSync } from 'node:fs'

/** What the line before a fenced block says about it (docs/index.md, "How these pages are checked"). */
export type Marker = { kind: 'runs' } | { kind: 'illustration' } | { kind: 'excerpt', path: string } | null

export interface Block {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  text: string
  marker: Marker
}

export interface Page {
  file: string
  blocks: Block[]
  /** The lines outside fenced blocks, with their 1-based numbers. */
  prose: Array<{ line: number, text: string }>
}

const MARKER = /^\s*<!-- (runs|illustration|excerpt: (\S+)) -->\s*$/

function markerOf (line: string | undefined): Marker {
  const m = MARKER.exec(line ?? '')
  if (m === null) return null
  if (m[1] === 'runs') return { kind: 'runs' }
  if (m[1] === 'illustration') return { kind: 'illustration' }
  return { kind: 'excerpt', path: m[2]! }
}

export function readPage (file: string): Page {
  const lines = readFileSync(file, 'utf8').split('\n')
  const page: Page = { file, blocks: [], prose: [] }
  let open: { fence: string, indent: number, block: Block, body: string[] } | null = null
  let previous: string | undefined
  lines.forEach((text, i) => {
    if (open !== null) {
      if (text.trim() === open.fence) {
        open.block.text = open.body.join('\n')
        page.blocks.push(open.block)
        open = null
      } else {
        open.body.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)))
      }
      return
    }
    const fence = /^(\s*)(```|~~~)(\S*)/.exec(text)
    if (fence !== null) {
      open = { fence: fence[2]!, indent: fence[1]!.length, block: { file, line: i + 1, lang: fence[3]!, text: '', marker: markerOf(previous) }, body: [] }
      return
    }
    page.prose.push({ line: i + 1, text })
    if (text.trim() !== '') previous = text
  })
  return page
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2 … */
export function anchorsOf (page: Page): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const { text } of page.prose) {
    const m = /^#{1,6} (.*)$/.exec(text)
    if (m === null) continue
    const slug = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replaceAll(' ', '-')
    const n = seen.get(slug)
    seen.set(slug, n === undefined ? 0 : n + 1)
    anchors.add(n === undefined ? slug : `${slug}-${n + 1}`)
  }
  return anchors
}

/** Relative links and images of the prose: `[text](target)`, web addresses left out. */
export function linksOf (page: Page): Array<{ line: number, target: string }> {
  const links: Array<{ line: number, target: string }> = []
  for (const { line, text } of page.prose) {
    // Inline code is not a link.
    const plain = text.replace(/`[^`]*`/g, '')
    for (const m of plain.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1]!)) links.push({ line, target: m[1]! })
    }
  }
  return links
}

/** The inline code spans of a prose line. */
export function codeSpans (text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)
}

/** A shell block's commands, continued lines joined and comments dropped. */
export function shellCommands (text: string): string[] {
  return text.replace(/\\\n\s*/g, ' ').split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '')
}
