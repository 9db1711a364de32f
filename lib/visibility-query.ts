/**
 * A raw visibility query joined to the API's own clauses must stay one group (docs/batch.md): the
 * tokens follow the engine's SQL scanner (MySQL rules), and whatever could end the group early is
 * refused; the rest is for the engine to parse.
 */
import { CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'
import { EVAL_CHECK_WORKFLOW_TYPE, EVAL_WORKFLOW_TYPE } from '@flowport/core/eval'

/** A visibility-query string literal: backslashes and double quotes escaped, so a value can never end the literal. */
export function quote (value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/** Internal runs (catalogs, webhook deliveries, evals) are never listed, batched nor counted as a version's open runs, whatever the query. */
export const INTERNAL_RUNS_EXCLUDED = [CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE, EVAL_WORKFLOW_TYPE, EVAL_CHECK_WORKFLOW_TYPE].map((type) => `WorkflowType != ${quote(type)}`)

interface Token { kind: 'open' | 'close' | 'literal' | 'comment' | 'end-of-statement' | 'unterminated' | 'other', at: number }

function endOfLiteral (query: string, start: number): number {
  const quote = query[start]
  // A backtick identifier takes no backslash escapes (MySQL); a doubled quote ends one literal and opens the next.
  const escapes = quote !== '`'
  for (let i = start + 1; i < query.length; i++) {
    if (escapes && query[i] === '\\') i++
    else if (query[i] === quote) return i + 1
  }
  return -1
}

function * tokens (query: string): Generator<Token> {
  let i = 0
  while (i < query.length) {
    const c = query[i]!
    if (c === '"' || c === '\'' || c === '`') {
      const end = endOfLiteral(query, i)
      if (end < 0) { yield { kind: 'unterminated', at: i }; return }
      yield { kind: 'literal', at: i }
      i = end
    } else if (c === '#' || query.startsWith('--', i) || query.startsWith('/*', i)) {
      yield { kind: 'comment', at: i }
      return
    } else {
      yield { kind: c === '(' ? 'open' : c === ')' ? 'close' : c === ';' ? 'end-of-statement' : 'other', at: i }
      i++
    }
  }
}

export function ungroupableReason (query: string): string | undefined {
  let depth = 0
  for (const token of tokens(query)) {
    const where = `(character ${token.at + 1})`
    switch (token.kind) {
      case 'open': depth++; break
      case 'close': if (--depth < 0) return `closes a parenthesis it did not open ${where}`; break
      case 'unterminated': return `has a quote or backtick that is never closed ${where}`
      case 'comment': return `has a comment ${where}; comments are not allowed`
      case 'end-of-statement': return `has a ";" ${where}; a query is one condition`
    }
  }
  return depth > 0 ? `leaves ${depth} parenthesis${depth > 1 ? 'es' : ''} open` : undefined
}
