/**
 * Where the API listens unless PORT says otherwise (schemas/config.ts): the CLI's and the client's default too.
 * Pure: no import.
 */
export const DEFAULT_PORT = 3001
