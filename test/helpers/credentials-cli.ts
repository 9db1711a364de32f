/**
 * `flowport credentials …` as a user runs it: a child process with its own working directory and
 * environment, optional stdin, and its exit code and output.
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'

export interface CliResult { code: number | null, stdout: string, stderr: string }

export async function credentialsCli (args: string[], options: { cwd: string, env?: Record<string, string>, stdin?: string }): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=flowport-source', resolve('cli/flowport.ts'), 'credentials', ...args], {
    cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  child.stdin.end(options.stdin ?? '')
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)))
  return { code, stdout, stderr }
}

/** The key `init` printed, from its `SERVICE_CREDENTIALS_KEY_<ENV>=<hex>` line. */
export function printedKey (stdout: string, variable: string): string {
  const match = new RegExp(`^${variable}=([0-9a-f]{64})$`, 'm').exec(stdout)
  if (match === null) throw new Error(`init printed no ${variable} line:\n${stdout}`)
  return match[1]
}
