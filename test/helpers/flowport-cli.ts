/**
 * The `flowport` command as a user runs it: the committed launcher (bin/flowport.js) in a child
 * process, against an API listening on a real port.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import type { Test } from 'tap'
import type { App } from '../../app.js'
import { build } from './app.js'
import { testCatalog } from './env.js'
import { until } from './processes.js'

export const launcher = resolve('bin/flowport.js')

export interface CliRun {
  child: ChildProcess
  exited: Promise<number | null>
  stdout: () => string
  stderr: () => string
  /** Resolves once stderr matches (false after the helper's deadline). */
  waitFor: (pattern: RegExp) => Promise<boolean>
}

export interface CliOptions { env?: Record<string, string | undefined>, stdin?: string, cwd?: string }

export function cli (args: string[], options: CliOptions = {}): CliRun {
  const child = spawn(process.execPath, [launcher, ...args], {
    cwd: options.cwd, env: { ...process.env, NO_COLOR: undefined, ...options.env }, stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  child.stdin.end(options.stdin ?? '')
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr, waitFor: async (pattern) => await until(() => pattern.test(stderr), 1200, 100) }
}

/** Runs a command to its end: exit code and output. */
export async function flowport (args: string[], options: CliOptions = {}): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const run = cli(args, options)
  const code = await run.exited
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}

/** The real API on a free port; `url` for FLOWPORT_URL. */
export async function listening (t: Test, env: Record<string, string> = {}): Promise<{ app: App, url: string, port: number }> {
  const app = await build(t, env)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: address, port: Number(new URL(address).port) }
}

/** `--catalog` for the commands that start runs or read the catalog. */
export const catalogArgs = (): string[] => ['--catalog', testCatalog()]
