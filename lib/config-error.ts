/** A setting that is missing, malformed or contradicts another; its message names the variable, never a secret's value. */
export class ConfigError extends Error {
  // Not an error name the API answers with (test/openapi.test.ts collects those from string literals).
  override name = ConfigError.name
}
