/**
 * A throw-away Redis for the shared rate-limit store of the cluster topology (and of the tests that
 * use one): Debian's redis-server (installed with apt-get when missing and running as root, as
 * ./postgres.ts does for PostgreSQL) as a child of this process on a free loopback port, with no
 * persistence, so that stopping this process leaves nothing behind.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { freePort } from '../engine.js'
import { ownServer } from '../supervise.js'
import { aptInstall } from './apt-install.js'

const REDIS_SERVER = '/usr/bin/redis-server'

export type RedisServer = Awaited<ReturnType<typeof startRedisServer>>

async function redisServerBinary (log: (m: string) => void): Promise<string> {
  if (existsSync(REDIS_SERVER)) return REDIS_SERVER
  await aptInstall('redis-server', log)
  if (!existsSync(REDIS_SERVER)) throw new Error(`apt-get installed redis-server, but no ${REDIS_SERVER} appeared`)
  return REDIS_SERVER
}

/** PING over a raw socket: true once the server answers +PONG. */
async function answersPing (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let reply = ''
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false) })
    socket.on('error', () => resolve(false))
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      reply += chunk.toString()
      if (reply.includes('\r\n')) { socket.end(); resolve(reply.startsWith('+PONG')) }
    })
  })
}

/** `port`: a given one (to bring a stopped server back where its clients look), else a free one. */
export async function startRedisServer ({ port, log = () => {} }: { port?: number, log?: (m: string) => void } = {}) {
  const binary = await redisServerBinary(log)
  port ??= await freePort()
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const { stop, untilServing } = ownServer(child, 'redis-server')
  await untilServing(async () => await answersPing(port), 10_000, 100)
  return { url: `redis://127.0.0.1:${port}`, port, process: child, stop }
}
