/**
 * Workflow-name patterns of the keys file: `*` stands for any run of characters, everything else
 * is literal (`invoice-*` matches `invoice-monthly`).
 */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function compilePattern (pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's')
}

export const matchesAny = (patterns: readonly RegExp[], name: string) => patterns.some((p) => p.test(name))
