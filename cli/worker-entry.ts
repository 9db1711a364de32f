/**
 * Where the worker's production entry is: its TypeScript source when this CLI runs from source
 * (npm start, tests), its compiled file when the CLI runs from dist (the image).
 */
import { fileURLToPath } from 'node:url'

const fromSource = import.meta.url.endsWith('.ts')

export const workerEntry = fileURLToPath(new URL(fromSource ? '../worker/src/main.ts' : '../../worker/dist/main.js', import.meta.url))

/** Node arguments that run the entry: the TypeScript loader and source condition when needed. */
export const workerNodeArgs = fromSource ? ['--import', 'tsx', '--conditions=flowport-source', workerEntry] : [workerEntry]

/** The delivery worker (`flowport deliveries`): the same entry, told by its argument. */
export const deliveriesNodeArgs = [...workerNodeArgs, 'deliveries']
