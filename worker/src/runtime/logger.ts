/** The worker's logger: any object with these four methods (pino and console-like loggers fit). */
export interface Logger {
  debug: (message: string, meta?: Record<string, unknown>) => void
  info: (message: string, meta?: Record<string, unknown>) => void
  warn: (message: string, meta?: Record<string, unknown>) => void
  error: (message: string, meta?: Record<string, unknown>) => void
}

/** Default: one line per entry on stderr, debug lines dropped. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: (message, meta) => { console.error(`[flowport] ${message}${meta ? ' ' + JSON.stringify(meta) : ''}`) },
  warn: (message, meta) => { console.error(`[flowport] warning: ${message}${meta ? ' ' + JSON.stringify(meta) : ''}`) },
  error: (message, meta) => { console.error(`[flowport] error: ${message}${meta ? ' ' + JSON.stringify(meta) : ''}`) }
}
