/**
 * Browser test helpers: Debian's Chromium (never a downloaded one), a page served from its own
 * origin, and the API's open sockets, so a test can drop its connections mid-stream.
 */
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Test } from 'tap'
import { chromium, type Browser } from 'playwright-core'
import type { App } from '../../app.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launchChromium (t: Test): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  t.teardown(() => browser.close())
  return browser
}

/** Serves `html()` (read on each request) on a port of its own: another origin than the API's. */
export async function servePage (t: Test, html: () => string): Promise<string> {
  const site: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(html())
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => site.close(() => resolve())))
  return `http://127.0.0.1:${(site.address() as { port: number }).port}/`
}

/** The app's open sockets (call before listen); destroying them drops every connection. */
export function trackSockets (app: App): Set<Socket> {
  const sockets = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return sockets
}
