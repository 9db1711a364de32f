/**
 * The run inspector (docs/inspector.md): a static page at /ui that talks only to the public API,
 * under a strict Content-Security-Policy. Workspace packages are bundled by esbuild at their first
 * request (no build step). Open without a credential: the page holds no data and asks for a key.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import fastifyStatic from '@fastify/static'
import { build, transform } from 'esbuild'
import type { Config } from '../../schemas/config.js'
import { isProduction } from '@flowport/core/settings'

/** ui/ at the root of the source tree, and beside dist/plugins/ in the built image (Dockerfile copies it). */
const UI_ROOT = fileURLToPath(new URL('../../ui/', import.meta.url))

const VENDOR: Record<string, string> = {
  'preact.mjs': fileURLToPath(import.meta.resolve('preact')),
  'htm.mjs': fileURLToPath(import.meta.resolve('htm'))
}

/** Each resolves as this process does (sources under `--conditions=flowport-source`, dist in the image); core.mjs only core's pure modules. */
const BUNDLED: Record<string, string[]> = {
  'client.mjs': ['@flowport/client'],
  'core.mjs': ['@flowport/core/steps', '@flowport/core/duration', '@flowport/core/run'],
  // The page's JSON Schema validator (ui/schema.js): its package ships ES modules, one file each; one bundle is one request.
  'json-schema.mjs': ['@cfworker/json-schema']
}

/** The client's own import of core resolves as this process's did: to core's sources under `--conditions=flowport-source`. */
const conditions = import.meta.resolve('@flowport/core/run').endsWith('.ts') ? ['flowport-source'] : []

/** Made at its first request (most apps, every test's, never serve one) and kept; a failure is forgotten, so the next request tries again. */
function keptOnceMade<T> (make: (file: string) => Promise<T>): (file: string) => Promise<T> {
  const made = new Map<string, Promise<T>>()
  return async (file) => {
    let found = made.get(file)
    if (found === undefined) {
      made.set(file, found = make(file))
      found.catch(() => { made.delete(file) })
    }
    return await found
  }
}

const browserModule = keptOnceMade(async (file) => {
  const entry = BUNDLED[file].map((specifier) => `export * from ${JSON.stringify(fileURLToPath(import.meta.resolve(specifier)))}`)
  const result = await build({
    stdin: { contents: entry.join('\n'), resolveDir: UI_ROOT, sourcefile: file },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions,
    // Minified, it is a third smaller gzipped (bench/RESULTS.md, inspector).
    minify: true,
    write: false,
    logLevel: 'silent'
  })
  return result.outputFiles[0]!.text
})

/** The page's own modules, minified with a source map beside each: small, and readable as written. */
const ownModule = keptOnceMade(async (file) => {
  const { code, map } = await transform(readFileSync(join(UI_ROOT, file), 'utf8'), { loader: 'js', format: 'esm', minify: true, sourcemap: 'external', sourcefile: file })
  return { code: `${code}//# sourceMappingURL=${file}.map\n`, map }
})

export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join('; ')

export const uiEnabled = (config: Config) => config.SERVICE_UI_ENABLED ?? !isProduction(config.NODE_ENV)

/** Not wrapped in fastify-plugin: its hook (the CSP) stays on the /ui routes. */
export default async function ui (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  if (!uiEnabled(config)) return

  fastify.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', UI_CSP)
    reply.header('x-content-type-options', 'nosniff')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('cross-origin-opener-policy', 'same-origin')
  })

  fastify.get('/ui/settings.json', { schema: { hide: true } }, async () => ({
    temporalUiUrl: config.SERVICE_UI_TEMPORAL_URL ?? null,
    namespace: config.TEMPORAL_NAMESPACE,
    defaultCatalog: config.SERVICE_CATALOG_ID
  }))

  // Browsers ask for /favicon.ico on their own, without the page's key: open, like the page.
  const favicon = readFileSync(join(UI_ROOT, 'favicon.svg'))
  fastify.get('/favicon.ico', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400')
    return favicon
  })

  for (const file of readdirSync(UI_ROOT).filter((f) => f.endsWith('.js'))) {
    fastify.get(`/ui/${file}`, { schema: { hide: true } }, async (_request, reply) => {
      reply.type('text/javascript; charset=utf-8')
      return (await ownModule(file)).code
    })
    fastify.get(`/ui/${file}.map`, { schema: { hide: true } }, async (_request, reply) => {
      reply.type('application/json; charset=utf-8')
      return (await ownModule(file)).map
    })
  }
  for (const file of Object.keys(BUNDLED)) {
    fastify.get(`/ui/vendor/${file}`, { schema: { hide: true } }, async (_request, reply) => {
      reply.type('text/javascript; charset=utf-8')
      return await browserModule(file)
    })
  }
  await fastify.register(fastifyStatic, {
    root: Object.values(VENDOR).map((file) => dirname(file)),
    prefix: '/ui/vendor/',
    decorateReply: false,
    index: false,
    // Only the two modules, not the rest of their packages' folders.
    allowedPath: (path) => Object.hasOwn(VENDOR, path.replace(/^\//, ''))
  })
  await fastify.register(fastifyStatic, {
    root: UI_ROOT,
    prefix: '/ui',
    redirect: true,
    decorateReply: false
  })
}
