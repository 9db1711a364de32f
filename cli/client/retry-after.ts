/**
 * A 429 that says when to come back (`Retry-After`) is tried again after that long, a bounded
 * number of times, saying on stderr that it waits: the engine runs one batch at a time (a second
 * one is refused with a 429 until the first ends, docs/batch.md), so `flowport batch` started
 * while another batch runs waits its turn rather than failing.
 */
import { RateLimitedError } from '@flowport/client'
import { info } from './output.js'

/** Tries in all, the first included: with the API's 3 s Retry-After, about half a minute. */
export const RATE_LIMITED_TRIES = 10

/** The wait when a 429 names none (seconds). */
const DEFAULT_WAIT_S = 3

export async function retryRateLimited<T> (what: string, call: () => Promise<T>, tries = RATE_LIMITED_TRIES): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (err) {
      if (!(err instanceof RateLimitedError) || attempt >= tries) throw err
      const seconds = err.retryAfter ?? DEFAULT_WAIT_S
      info(`${what}: ${err.message.split(':')[0]}; waiting ${seconds} s as the API asks (Retry-After), then trying again (${attempt + 1} of ${tries})`)
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    }
  }
}
