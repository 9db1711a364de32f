/**
 * The three client generators of the conformance tests (test/client-conformance-*.test.ts), pinned,
 * each installed from the registry the project already uses and kept in the Flowport cache
 * directory: openapi-python-client (PyPI, in a venv with mypy), @hey-api/openapi-ts (an npm
 * devDependency) and openapi-generator (the openapi-generator-cli jar from Maven Central, fetched
 * with Maven, run with the machine's Java). Each generation hands back everything the generator
 * printed, for the tests to hold every warning against their list. docs/catalog-openapi.md shows
 * the same commands for a client author.
 */
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { cacheDir } from '../../cli/temporal-binary.js'
import { pythonVenv, type PythonVenv } from './python-venv.js'

const run = promisify(execFile)

export const OPENAPI_PYTHON_CLIENT_VERSION = '0.29.1'
export const MYPY_VERSION = '2.4.1'
export const OPENAPI_GENERATOR_VERSION = '7.25.0'

/** What a command printed (`output`: stdout then stderr) and its exit code. */
export interface Ran { code: number, stdout: string, stderr: string, output: string }

/** Runs a command to its end; a non-zero exit is returned, not thrown. */
export async function runCommand (command: string, args: string[], options: { cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number } = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 })
    return { code: 0, stdout, stderr, output: `${stdout}${stderr}` }
  } catch (err) {
    const failed = err as { code?: number | string, stdout?: string, stderr?: string, message: string }
    const stdout = failed.stdout ?? ''
    const stderr = failed.stderr || failed.message
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout, stderr, output: `${stdout}${stderr}` }
  }
}

/** The venv of openapi-python-client and mypy (mypy type-checks the conformance script against the generated client). */
export function pythonGenerator (log?: (message: string) => void): PythonVenv {
  return pythonVenv(`openapi-python-client-${OPENAPI_PYTHON_CLIENT_VERSION}-mypy-${MYPY_VERSION}`,
    [`openapi-python-client==${OPENAPI_PYTHON_CLIENT_VERSION}`, `mypy==${MYPY_VERSION}`], log)
}

/**
 * openapi-python-client: generates the package `<out>/<name>` from `document`. Its post-generation
 * hooks (ruff) come from the venv's bin directory, as a client author's installed tool finds them.
 */
export async function generatePython (venv: PythonVenv, document: string, out: string): Promise<Ran> {
  return await runCommand(venv.python, ['-m', 'openapi_python_client', 'generate', '--path', document, '--meta', 'none', '--output-path', out, '--overwrite'], {
    env: { ...process.env, PATH: `${venv.bin}:${process.env.PATH ?? ''}` }
  })
}

/** @hey-api/openapi-ts with its defaults (types, SDK functions, the fetch client); run in `cwd`, where its tsconfig.json says how to write imports. */
export async function generateTypeScript (document: string, out: string, cwd: string): Promise<Ran> {
  return await runCommand(resolve('node_modules/.bin/openapi-ts'), ['--input', document, '--output', out], { cwd })
}

/**
 * The openapi-generator-cli jar of OPENAPI_GENERATOR_VERSION in `<cache>/openapi-generator-<version>/`,
 * copied there from Maven Central by Maven (`mvn dependency:copy`) if missing.
 */
export function openapiGeneratorJar (log: (message: string) => void = () => {}): string {
  const dir = join(cacheDir(), `openapi-generator-${OPENAPI_GENERATOR_VERSION}`)
  const jar = join(dir, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`)
  if (existsSync(jar)) return jar
  log(`fetching org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION} into ${dir}`)
  const staging = `${dir}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const mvn = spawnSync('mvn', ['--batch-mode', '--quiet', 'dependency:copy', `-Dartifact=org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`,
    `-DoutputDirectory=${staging}`], { cwd: staging, stdio: ['ignore', 'inherit', 'inherit'] })
  if (mvn.status !== 0 || !readdirSync(staging).includes(`openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`)) {
    rmSync(staging, { recursive: true, force: true })
    throw new Error(`Maven could not fetch openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} (exit ${mvn.status ?? mvn.signal})`)
  }
  try {
    renameSync(staging, dir)
  } catch (err) {
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(jar)) throw err
  }
  return jar
}

/**
 * openapi-generator's `go` client as the Go module `example.com/flowport/<name>` in `out`. Options,
 * each a documented generator setting: enum constants prefixed by their type (two enums sharing a
 * value, such as RunStatus and TerminalRunStatus, would otherwise declare the same Go constant
 * twice); a `oneOf` decoded by its discriminator (by default every member is tried, and an answer
 * that fits two members, as an EvalInterpretation does, is refused); no generated tests or docs
 * (their test files pull testify for nothing).
 */
export async function generateGo (jar: string, document: string, out: string, name: string): Promise<Ran> {
  return await runCommand('java', ['-jar', jar, 'generate', '--input-spec', document, '--generator-name', 'go', '--output', out,
    '--package-name', 'flowport', '--git-host', 'example.com', '--git-user-id', 'flowport', '--git-repo-id', name,
    '--additional-properties', 'enumClassPrefix=true,useOneOfDiscriminatorLookup=true', '--global-property', 'apiTests=false,modelTests=false,apiDocs=false,modelDocs=false'])
}
