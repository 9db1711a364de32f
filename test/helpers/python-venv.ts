/**
 * Python tools from PyPI for the tests and scripts (schemathesis for `npm run fuzz`,
 * openapi-python-client and mypy for the client conformance test): each in a virtual environment of
 * its own under the Flowport cache directory (FLOWPORT_CACHE_DIR, default ~/.cache/flowport), named
 * by its pinned requirements, so a second run finds it at once and a new pin gets a new one.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cacheDir } from '../../cli/temporal-binary.js'

export interface PythonVenv {
  /** The environment's interpreter: run a tool as `python -m <module>`. */
  python: string
  /** Its bin directory (console scripts such as ruff, which a tool may call by name from PATH). */
  bin: string
}

/**
 * The virtual environment `<cache>/venv-<name>` holding `requirements` (exact pins), created if
 * missing. It is built beside its place and renamed into it once pip succeeded, so an interrupted
 * or failed install is never used; a venv survives the rename, as every tool is run through
 * `python -m`, never through a console script's shebang.
 */
export function pythonVenv (name: string, requirements: string[], log: (message: string) => void = () => {}): PythonVenv {
  const target = join(cacheDir(), `venv-${name}`)
  const venv = (dir: string): PythonVenv => ({ python: join(dir, 'bin', 'python'), bin: join(dir, 'bin') })
  if (existsSync(join(target, 'installed'))) return venv(target)
  const python = spawnSync('python3', ['-c', 'import sys; sys.exit(sys.version_info < (3, 11))'])
  if (python.status !== 0) throw new Error(`${requirements.join(' ')}: needs python3 ≥ 3.11 with venv and pip`)
  log(`installing ${requirements.join(' ')} into ${target}`)
  const staging = `${target}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  const step = (command: string, args: string[]) => {
    const done = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] })
    if (done.status !== 0) {
      rmSync(staging, { recursive: true, force: true })
      throw new Error(`${command} ${args.join(' ')} failed (exit ${done.status ?? done.signal})`)
    }
  }
  step('python3', ['-m', 'venv', staging])
  step(venv(staging).python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-warn-script-location', ...requirements])
  // The marker is written last: a directory without it is an install that did not finish.
  writeFileSync(join(staging, 'installed'), `${requirements.join('\n')}\n`)
  if (!existsSync(join(target, 'installed'))) rmSync(target, { recursive: true, force: true })
  try {
    renameSync(staging, target)
  } catch (err) {
    // Another process installed the same environment meanwhile: use it.
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(join(target, 'installed'))) throw err
  }
  return venv(target)
}
