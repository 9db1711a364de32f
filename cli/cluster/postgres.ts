/**
 * A throw-away PostgreSQL cluster for the cluster topology: Debian's PostgreSQL (installed with
 * apt-get when missing), `initdb` into a temporary directory, and the `postgres` server as a child
 * of this process on a free loopback port, so that stopping this process leaves nothing behind.
 * PostgreSQL refuses to run as root: as root, every PostgreSQL command runs as the `postgres`
 * user the Debian package creates (setpriv, which execs in place: the child is the postmaster).
 */
import { execFile, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../engine.js'
import { ownServer } from '../supervise.js'
import { aptInstall } from './apt-install.js'

const run = promisify(execFile)

export type Postgres = Awaited<ReturnType<typeof startPostgres>>

export const POSTGRES_USER = 'temporal'

/** The newest Debian PostgreSQL's bin folder (`/usr/lib/postgresql/<major>/bin`). */
function debianBinDir (): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const majors = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return majors.length > 0 ? join(root, majors[0], 'bin') : undefined
}

async function postgresBinDir (log: (m: string) => void): Promise<string> {
  const found = debianBinDir()
  if (found) return found
  await aptInstall('postgresql', log)
  const installed = debianBinDir()
  if (!installed) throw new Error('apt-get installed postgresql, but no /usr/lib/postgresql/<version>/bin/initdb appeared')
  return installed
}

/** The command prefix that runs a PostgreSQL binary as a non-root user. */
async function asPostgresUser (): Promise<{ prefix: string[], uid: number, gid: number } | null> {
  if (process.getuid?.() !== 0) return null
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim())
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim())
  return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'], uid, gid }
}

export async function startPostgres (opts: { port?: number, log?: (m: string) => void } = {}) {
  const log = opts.log ?? (() => {})
  const bin = await postgresBinDir(log)
  const user = await asPostgresUser()
  const root = mkdtempSync(join(tmpdir(), 'flowport-pg-'))
  const dataDir = join(root, 'data')
  if (user) chownSync(root, user.uid, user.gid)
  const as = (command: string, args: string[]): [string, string[]] => user ? [user.prefix[0], [...user.prefix.slice(1), join(bin, command), ...args]] : [join(bin, command), args]

  // Throw-away: no fsync while initdb writes its files (the server itself runs with the defaults).
  await run(...as('initdb', ['-D', dataDir, '-U', POSTGRES_USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']), { timeout: 120_000 })
  const port = await freePort(opts.port ?? 0)
  const child = spawn(...as('postgres', ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', root,
    // Two history-shard owners, matching and visibility keep about 60 connections open.
    '-c', 'max_connections=200']), { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, not waited for.
  const { stop, untilServing } = ownServer(child, 'postgres', { signal: 'SIGINT', dir: root })
  const accepting = async (): Promise<boolean> => {
    await run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', POSTGRES_USER, '-q'])
    return true
  }
  await untilServing(accepting, 60_000)
  log(`PostgreSQL ${bin.split('/').at(-2) ?? ''} on 127.0.0.1:${port} (data in ${dataDir})`)
  // `user`: the superuser `initdb` created; local connections need no password (trust).
  return { host: '127.0.0.1', port, user: POSTGRES_USER, dataDir, process: child, stop }
}
