/**
 * A raw visibility query joined to clauses of the API's own (`(<query>) AND WorkflowType != …`,
 * plugins/app/batch/batch.ts) must stay one group: the tokens below follow the engine's SQL scanner (MySQL
 * rules) so that a parenthesis inside a string literal or a backtick identifier is not mistaken
 * for one that closes the group, and anything that could end the group early (an unmatched `)`,
 * an unterminated literal, a comment swallowing the text after it, a `;`) is refused. What is
 * left is for the engine to parse; it rejects what it cannot (a 400 too). docs/batch.md. `quote`
 * writes a value as a literal for the API's own clauses.
 */

/** A visibility-query string literal: backslashes and double quotes escaped, so a value can never end the literal. */
export function quote (value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

interface Token { kind: 'open' | 'close' | 'literal' | 'comment' | 'end-of-statement' | 'unterminated' | 'other', at: number }

/** Where the literal opened at `start` ends (the index after its closing quote), or -1 when it never does. */
function endOfLiteral (query: string, start: number): number {
  const quote = query[start]
  // String literals take backslash escapes; a backtick identifier does not (MySQL). A doubled
  // quote ends one literal and opens the next at once, so its boundaries come out the same.
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

/** Why `query` could not be kept as one group when joined to other clauses, or undefined when it can. */
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
