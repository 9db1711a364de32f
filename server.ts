/**
 * Production entry of the API: settings → app → listen; graceful shutdown on SIGTERM/SIGINT.
 */
import closeWithGrace from 'close-with-grace'
import { buildApp, type BuildOptions } from './app.js'
import { loadConfig } from './plugins/external/config/index.js'
import { ConfigError } from './lib/config-error.js'

/** `logStream`: where the log lines go (default stdout, as JSON); the dev stack prettifies them. */
export async function startApi (env: Record<string, string | undefined> = process.env, { logStream, storeStarting }: Pick<BuildOptions, 'logStream' | 'storeStarting'> = {}) {
  const config = loadConfig(env)
  const app = await buildApp({ config, logStream, storeStarting })
  await app.listen({ host: config.HOST, port: config.PORT })
  return app
}

/** Runs the API until SIGTERM/SIGINT; a bad setting stops the process naming the variable. */
export async function main (): Promise<void> {
  try {
    const app = await startApi()
    closeWithGrace({ delay: 10_000 }, async ({ err }) => {
      if (err) app.log.error({ err }, 'closing after error')
      await app.close()
    })
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err)
    process.exit(1)
  }
}

if (import.meta.url === new URL(process.argv[1] ?? '', 'file:').href) await main()
