/**
 * Installs a Debian package the cluster topology's servers need (PostgreSQL, redis-server) with
 * apt-get, which only root may run; anyone else is told the command to run.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

export async function aptInstall (pkg: string, log: (m: string) => void): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error(`${pkg} is not installed: \`apt-get install -y ${pkg}\` (as root), then run this again`)
  log(`Installing ${pkg} (apt-get)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run('apt-get', ['update', '-qq'], { env, timeout: 600_000 })
  await run('apt-get', ['install', '-y', '-qq', pkg], { env, timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 })
}
