/**
 * Errors of the encrypted credentials file. None of them is retried (a missing or unreadable
 * credential stays so on the next attempt), and no message ever carries a credential or a key:
 * they name settings, paths and files only.
 */
import { FatalError } from '../fatal-error.js'

/** A credentials problem that is not one of the specific kinds below (e.g. a path that holds a mapping). */
export class CredentialsError extends FatalError {}

/** The credentials file, its key, or a value at a path is missing. */
export class MissingCredentialError extends CredentialsError {}

/** The key is not 64 hexadecimal characters. */
export class MalformedCredentialsKeyError extends CredentialsError {}

/** The key is well-formed but not the one the file was encrypted with. */
export class WrongCredentialsKeyError extends CredentialsError {}

/** The file is not a credentials file, or it changed since it was written (its authentication failed). */
export class TamperedCredentialsError extends CredentialsError {}
