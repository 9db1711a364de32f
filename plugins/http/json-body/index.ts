/**
 * Fastify's JSON parser plus what it cannot say, each a 400 naming where (json-checks.ts). An empty
 * body means none; `text/plain` is removed, so a text body is the 415 the document promises.
 */
import fp from 'fastify-plugin'
import { validationError } from '../../../lib/api-error.js'
import { loneSurrogateAt, nestsDeeperThan, prototypeKeyAt } from './json-checks.js'

/** Plain JSON.parse (own `__proto__` properties, no prototype change), only to locate what the safe parser refused. */
function parsedOrUndefined (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export default fp(async (fastify) => {
  const parseJson = fastify.getDefaultJsonParser('error', 'error')
  const maxDepth = fastify.config.SERVICE_JSON_MAX_DEPTH
  fastify.removeContentTypeParser(['application/json', 'text/plain'])
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (text === '') return done(null, undefined)
    if (nestsDeeperThan(text, maxDepth)) {
      return done(validationError([{ path: '/', in: 'body', message: `must not nest arrays and objects more than ${maxDepth} levels deep` }]))
    }
    void parseJson(request, text, (err, value) => {
      if (err) {
        const at = prototypeKeyAt(parsedOrUndefined(text))
        if (at === undefined) return done(err)
        return done(validationError([{ path: at, in: 'body', message: 'is refused: a __proto__ key, or a constructor holding a prototype, could poison prototypes' }]))
      }
      // The raw text is decoded UTF-8, so a lone surrogate can only come from a \uD800–\uDFFF escape.
      const at = /\\u[dD][89a-fA-F]/.test(text) ? loneSurrogateAt(value) : undefined
      if (at !== undefined) return done(validationError([{ path: at, in: 'body', message: 'must be well-formed Unicode (it contains a lone surrogate)' }]))
      done(null, value)
    })
  })
}, { name: 'json-body', dependencies: ['config'] })
