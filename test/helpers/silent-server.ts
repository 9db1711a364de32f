/**
 * A TCP server that accepts connections and never answers: storage (or any HTTP peer) that hangs,
 * a fault a real server cannot be asked to produce. Closed, with its connections, at teardown.
 */
import { createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

export interface SilentServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** Connections accepted so far. */
  accepted: () => number
}

export async function silentServer (t: Test): Promise<SilentServer> {
  const sockets: Socket[] = []
  const server = createServer((socket) => { sockets.push(socket) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, accepted: () => sockets.length }
}
