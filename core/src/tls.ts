/**
 * TLS towards Temporal from the TEMPORAL_TLS* settings, shared by the API and the worker so both
 * read the same variables the same way: TLS when asked for, or implied by an API key or a client
 * certificate; certificate files are read once, at start.
 */
import { readFileSync } from 'node:fs'
import type { Static, TObject } from '@sinclair/typebox'
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow/tls-config.js'
import type { EngineEnvProperties } from './settings.js'

/** The engine settings (settings.ts) this reads: TEMPORAL_TLS, TEMPORAL_TLS_* and TEMPORAL_API_KEY. */
export type TlsSettings = Partial<Static<TObject<typeof EngineEnvProperties>>> & { TEMPORAL_TLS: boolean }

export function tlsFromSettings (settings: TlsSettings): TLSConfig | undefined {
  const wanted = settings.TEMPORAL_TLS || settings.TEMPORAL_API_KEY !== undefined || settings.TEMPORAL_TLS_CERT_PATH !== undefined
  if (!wanted) return undefined
  const read = (path?: string): Buffer | undefined => (path === undefined ? undefined : readFileSync(path))
  const crt = read(settings.TEMPORAL_TLS_CERT_PATH)
  const key = read(settings.TEMPORAL_TLS_KEY_PATH)
  return {
    serverNameOverride: settings.TEMPORAL_TLS_SERVER_NAME,
    serverRootCACertificate: read(settings.TEMPORAL_TLS_CA_PATH),
    clientCertPair: crt !== undefined && key !== undefined ? { crt, key } : undefined
  }
}
