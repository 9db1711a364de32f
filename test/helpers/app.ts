/**
 * Builds the real app against the real engine for a test, closed at teardown.
 */
import type { Test } from 'tap'
import { buildApp, type App, type BuildOptions } from '../../app.js'
import { loadConfig } from '../../plugins/external/config/index.js'
import { engineAddress, testCatalog } from './env.js'

/** The trace settings scripts/test.ts gives the shared worker, so apps read what it writes. */
export function traceEnv (): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] =>
    /^SERVICE_(TRACE|CLOUD|PAYLOAD)_/.test(e[0]) && e[1] !== undefined))
}

/** An app of the test engine with `env` on top of the tests' settings; `logs` receives its log lines (LOG_LEVEL info unless set); `seams` as buildApp takes them. */
export async function build (t: Test, env: Record<string, string> = {}, logs?: string[], seams: Pick<BuildOptions, 'localClock'> = {}): Promise<App> {
  const config = loadConfig({
    ...traceEnv(),
    TEMPORAL_ADDRESS: engineAddress(),
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    SERVICE_CATALOG_ID: testCatalog(),
    LOG_LEVEL: logs === undefined ? 'silent' : 'info',
    ...env
  })
  const app = await buildApp(logs === undefined ? { config, ...seams } : { config, ...seams, logger: { level: config.LOG_LEVEL, stream: { write: (line: string) => { logs.push(line) } } } })
  t.teardown(() => app.close())
  return app
}
