/**
 * The production image's API command as the Dockerfile's `CMD` states it, so that the image test
 * and the memory benchmark run exactly what the image runs (there is no Docker engine here).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/** `CMD ["node", …flags, script]` → the flags and the script. */
export function imageApiCommand (dockerfile = resolve('Dockerfile')): { nodeFlags: string[], script: string } {
  const line = readFileSync(dockerfile, 'utf8').split('\n').findLast((l) => l.startsWith('CMD '))
  if (!line) throw new Error(`${dockerfile} has no CMD`)
  const command = JSON.parse(line.slice(4)) as string[]
  if (command[0] !== 'node' || command.length < 2) throw new Error(`${dockerfile}: CMD is not a node command: ${line}`)
  return { nodeFlags: command.slice(1, -1), script: command[command.length - 1] }
}
