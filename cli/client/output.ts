/**
 * Where and how the client commands print: results on stdout (one JSON document with --json),
 * progress and errors on stderr; colour only on a terminal and never with NO_COLOR (no-color.org).
 */
import Table from 'cli-table3'

/** Whether stderr (where progress goes) is a terminal. */
export const isTty = (): boolean => process.stderr.isTTY === true

export function useColor (): boolean {
  return isTty() && (process.env.NO_COLOR ?? '') === ''
}

const codes = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2, bold: 1 } as const
export type Style = keyof typeof codes

export function paint (style: Style, text: string, color = useColor()): string {
  return color ? `\u001b[${codes[style]}m${text}\u001b[0m` : text
}

export function printJson (value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

/** An aligned table; borders only on a terminal, so piped output stays greppable. */
export function printTable (head: string[], rows: string[][]): void {
  const plain = !process.stdout.isTTY
  const table = new Table({
    head,
    style: { head: useColor() ? ['cyan'] : [], border: [] },
    ...(plain
      ? {
          chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
          style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 }
        }
      : {})
  })
  table.push(...rows)
  // Without borders cli-table3 still pads the last column: drop the trailing blanks.
  process.stdout.write(`${plain ? table.toString().replace(/ +$/gm, '') : table.toString()}\n`)
}

export function info (line: string): void {
  process.stderr.write(`${line}\n`)
}
