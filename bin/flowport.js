#!/usr/bin/env -S node --max-semi-space-size=2
// The `flowport` command as npm installs it. In a checkout with its dev dependencies (a fresh
// `npm ci`, no build), it runs the TypeScript source through tsx; elsewhere (the built package,
// the production image) the compiled dist/cli/flowport.js. The source wins when both exist, so a
// stale build never shadows the code being edited.
// The shebang gives node the production image's young-generation cap (the Dockerfile's CMD;
// test/deploy.test.ts keeps the two equal): `flowport api` from the build then starts as lean as
// the image, about 20 MiB less resident memory than with V8's default (docs/performance.md). The
// built CLI is imported in this process, so no later place can set a V8 flag without a second
// process. A flag on the command line wins over NODE_OPTIONS: for another value run
// `node --max-semi-space-size=N bin/flowport.js` (or dist/cli/flowport.js).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const source = fileURLToPath(new URL('../cli/flowport.ts', import.meta.url))
const built = new URL('../dist/cli/flowport.js', import.meta.url)

function tsxLoader () {
  if (!existsSync(source)) return undefined
  try {
    return import.meta.resolve('tsx')
  } catch {
    return undefined
  }
}

const loader = tsxLoader()
if (loader === undefined) {
  await import(built.href)
} else {
  const child = spawn(process.execPath, ['--import', loader, '--conditions=flowport-source', source, ...process.argv.slice(2)], { stdio: 'inherit' })
  // Ctrl-C on a terminal reaches both processes; a signal sent to this one alone is passed on.
  // The child decides what a signal means (detach, stop); this process only waits for it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => { child.kill(signal) })
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + ({ SIGINT: 2, SIGHUP: 1, SIGKILL: 9 }[signal] ?? 15)
  })
}
