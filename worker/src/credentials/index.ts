/**
 * `@flowport/worker/credentials`: the encrypted credentials file, for the `flowport credentials`
 * command and for tools. Step code uses `credentials` from `@flowport/worker`.
 */
export { decrypt, encrypt, generateKey, parseKey } from './cipher.js'
export { credentialAt, maskedText, parseCredentials, pathSegments, type CredentialsDocument } from './document.js'
export { CredentialsError, MalformedCredentialsKeyError, MissingCredentialError, TamperedCredentialsError, WrongCredentialsKeyError } from './errors.js'
export { credentialsLocation, readCredentials, readKey, writeCredentials, type CredentialsLocation } from './location.js'
export { credentials, resolveCredentialReferences, resolveCredentialSettings } from './credentials.js'
