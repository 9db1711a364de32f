/**
 * The credentials file's encryption: AES-256-GCM from Node's crypto, a fresh random 96-bit nonce
 * per write, and the authentication tag checked on every read. The file is text:
 *
 *     flowport-credentials v1 aes-256-gcm key-id=<16 hex>
 *     <base64 of nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)>
 *
 * The first line is authenticated too (it is the cipher's additional data). The key id is derived
 * from the key with HKDF, so it tells a wrong key from a modified file without revealing the key.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { MalformedCredentialsKeyError, TamperedCredentialsError, WrongCredentialsKeyError } from './errors.js'

const ALGORITHM = 'aes-256-gcm'
const NONCE_BYTES = 12
const TAG_BYTES = 16
const HEADER = /^flowport-credentials v1 aes-256-gcm key-id=([0-9a-f]{16})$/

/** Where a key came from and which file it opens, for messages (never the key itself). */
export interface KeyOrigin {
  /** The environment variable holding the key. */
  variable: string
  file: string
}

/** A new key: 32 random bytes as 64 hexadecimal characters. */
export function generateKey (): string {
  return randomBytes(32).toString('hex')
}

/** The key's bytes; a value that is not 64 hexadecimal characters is refused without being shown. */
export function parseKey (text: string, variable: string): Buffer {
  const trimmed = text.trim()
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    throw new MalformedCredentialsKeyError(`${variable} must be 64 hexadecimal characters (a 32-byte key); it holds ${trimmed.length} characters${/^[0-9a-fA-F]*$/.test(trimmed) ? '' : ', not all hexadecimal'}`)
  }
  return Buffer.from(trimmed, 'hex')
}

function keyId (key: Buffer): string {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'flowport credentials key id', 8)).toString('hex')
}

/** The file's text for `plaintext`, with a new nonce. */
export function encrypt (plaintext: string, key: Buffer): string {
  const header = `flowport-credentials v1 aes-256-gcm key-id=${keyId(key)}`
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv(ALGORITHM, key, nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(Buffer.from(header))
  const body = Buffer.concat([nonce, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${header}\n${body.toString('base64')}\n`
}

/** The plaintext of a file's text; a wrong key and a modified file are distinct errors. */
export function decrypt (text: string, key: Buffer, origin: KeyOrigin): string {
  const tampered = (): TamperedCredentialsError =>
    new TamperedCredentialsError(`${origin.file} is not a credentials file or was modified since it was written (it failed its integrity check); restore it from version control`)
  const [header = '', body = '', ...rest] = text.split('\n').map((line) => line.trim()).filter(Boolean)
  const match = HEADER.exec(header)
  if (match === null || rest.length > 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw tampered()
  if (match[1] !== keyId(key)) throw new WrongCredentialsKeyError(`${origin.variable} does not open ${origin.file}: the file was encrypted with another key`)
  const bytes = Buffer.from(body, 'base64')
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw tampered()
  const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES })
  decipher.setAAD(Buffer.from(header))
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
  try {
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')
  } catch {
    throw tampered()
  }
}
