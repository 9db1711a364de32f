/**
 * Short-lived JWS (HS256) bound to one workflow id (and maybe one run), for browsers, which can
 * carry a credential only in the URL. The first secret signs, every one verifies. Without
 * configured secrets each process draws its own: a token works only on its issuer replica.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Scope } from '../../../schemas/access.js'

export interface RunTokenClaims {
  /** Its requests are that key's (audit, rate limit). */
  keyId: string
  workflowId: string
  runId?: string
  scopes: Scope[]
}

/** Loaded on first use: an API that never sees a token does not hold it (about 0.5 MiB of heap). */
const jose = async () => await import('jose')

const ISSUER = 'flowport'
const AUDIENCE = 'flowport-run'

interface Secret { kid: string, key: Uint8Array }

const secretOf = (text: string | Buffer): Secret =>
  ({ kid: createHash('sha256').update(text).digest('base64url').slice(0, 12), key: typeof text === 'string' ? Buffer.from(text) : text })

export class RunTokens {
  readonly #own = [secretOf(randomBytes(32))]
  #from: readonly string[] | undefined
  #derived: Secret[] = this.#own

  /** None: the process's own. */
  constructor (readonly source: () => readonly string[]) {}

  get ephemeral (): boolean { return this.source().length === 0 }

  /** Derived again only when the source hands over another list. */
  get #secrets (): Secret[] {
    const current = this.source()
    if (current !== this.#from) {
      this.#from = current
      this.#derived = current.length === 0 ? this.#own : current.map(secretOf)
    }
    return this.#derived
  }

  async issue (claims: RunTokenClaims, ttlSeconds: number): Promise<{ token: string, expiresAt: Date }> {
    const now = Math.floor(Date.now() / 1000)
    const [signer] = this.#secrets
    const { SignJWT } = await jose()
    const token = await new SignJWT({ scp: claims.scopes, rid: claims.runId, key: claims.keyId })
      .setProtectedHeader({ alg: 'HS256', kid: signer!.kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.workflowId)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(signer!.key)
    return { token, expiresAt: new Date((now + ttlSeconds) * 1000) }
  }

  async verify (token: string): Promise<RunTokenClaims> {
    const { errors, jwtVerify } = await jose()
    try {
      const { payload } = await jwtVerify(token, async (header) => {
        const secret = this.#secrets.find((s) => s.kid === header.kid)
        if (!secret) throw new RunTokenError('signed with a secret this server does not hold')
        return secret.key
      }, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })
      const scopes = payload.scp
      if (typeof payload.sub !== 'string' || typeof payload.key !== 'string' || !Array.isArray(scopes)) throw new RunTokenError('malformed claims')
      return { keyId: payload.key, workflowId: payload.sub, runId: typeof payload.rid === 'string' ? payload.rid : undefined, scopes: scopes as Scope[] }
    } catch (err) {
      if (err instanceof RunTokenError) throw err
      if (err instanceof errors.JWTExpired) throw new RunTokenError('expired')
      throw new RunTokenError('invalid')
    }
  }
}

export class RunTokenError extends Error {
  override name = this.constructor.name
}

/** Keys (fpk_…) never hold a dot. */
export const looksLikeRunToken = (value: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(value)
