/**
 * Produces the OpenAPI document from the app's routes without touching the engine
 * (the Temporal connection is lazy).
 */
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'

export async function openapiDocument (): Promise<Record<string, unknown>> {
  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), logger: false })
  try {
    await app.ready()
    return app.swagger() as unknown as Record<string, unknown>
  } finally {
    await app.close()
  }
}

export const serialize = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`
