/**
 * `@flowport/core/credentials`: the encrypted credentials file, for the worker (its settings and
 * steps), the API (its settings and keys file) and the `flowport credentials` command. Step code
 * uses `credentials` from `@flowport/worker`, which re-exports it.
 */
export { decrypt, encrypt, generateKey, parseKey } from './cipher.js'
export { credentialAt, maskedText, parseCredentials, pathSegments, type CredentialsDocument } from './document.js'
export { CredentialsError, MalformedCredentialsKeyError, MissingCredentialError, TamperedCredentialsError, WrongCredentialsKeyError } from './errors.js'
export { credentialsLocation, readCredentials, readKey, writeCredentials, type CredentialsLocation } from './location.js'
export { credentials, resolveCredentialReferences, resolveCredentialSettings } from './credentials.js'
