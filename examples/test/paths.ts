/** Test constants that need no engine. */
import { fileURLToPath } from 'node:url'

export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url))

export const quietLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: (message: string) => { console.error(message) } }
