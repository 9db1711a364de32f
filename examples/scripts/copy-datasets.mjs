// Part of `npm run build`: copies each workflow's eval datasets (src/<workflow>/datasets/) beside
// its compiled files (dist/<workflow>/datasets/), where the worker looks for them next to the
// workflow file (README "Testing and evals"); tsc copies only what it compiles.
import { cpSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
for (const entry of readdirSync(join(root, 'src'), { withFileTypes: true })) {
  const datasets = join(root, 'src', entry.name, 'datasets')
  if (entry.isDirectory() && existsSync(datasets)) cpSync(datasets, join(root, 'dist', entry.name, 'datasets'), { recursive: true })
}
