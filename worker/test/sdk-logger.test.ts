/**
 * The SDK's log lines go through the worker's logger (worker/src/runtime/telemetry.ts): its levels
 * map onto LOG_LEVEL's, and its fields come out as JSON can carry them.
 */
import t from 'tap'
import { createLogger } from '../src/common/logger.js'
import { sdkLogger } from '../src/runtime/telemetry.js'

const sink = (level: 'debug' | 'info' | 'warn') => {
  const lines: Array<Record<string, unknown>> = []
  return { lines, logger: sdkLogger(createLogger({ level, json: true, write: (line) => { lines.push(JSON.parse(line) as Record<string, unknown>) } })) }
}

t.test('each SDK level lands on the worker logger\'s, filtered by its level', async (t) => {
  const { lines, logger } = sink('info')
  logger.trace('a trace')
  logger.debug('a debug')
  logger.info('an info', { sdkComponent: 'worker' })
  logger.log('WARN', 'a warning')
  logger.error('an error')
  t.match(lines, [
    { level: 30, msg: 'an info', sdkComponent: 'worker' },
    { level: 40, msg: 'a warning' },
    { level: 50, msg: 'an error' }
  ])
  t.equal(lines.length, 3, 'trace and debug are below info')

  const verbose = sink('debug')
  verbose.logger.trace('a trace')
  t.match(verbose.lines, [{ level: 20, msg: 'a trace' }], 'TRACE is the worker\'s debug')

  const quiet = sink('warn')
  quiet.logger.info('Worker state changed', { state: 'RUNNING' })
  t.same(quiet.lines, [], 'LOG_LEVEL=warn drops the SDK\'s info lines')
})

t.test('fields: errors by name and message, bigints by their digits, symbol keys left out', async (t) => {
  const { lines, logger } = sink('info')
  logger.warn('failed', { error: new TypeError('bad input'), at: 12345678901234567890n, [Symbol('timestamp')]: 1n, workflowId: 'w' })
  t.same(lines[0], { level: 40, time: lines[0].time, msg: 'failed', error: 'TypeError: bad input', at: '12345678901234567890', workflowId: 'w' })
})

t.test('a field JSON cannot hold costs the fields, not the line; the entry\'s own fields win', async (t) => {
  const { lines, logger } = sink('info')
  const cycle: Record<string, unknown> = { name: 'loop' }
  cycle.self = cycle
  t.doesNotThrow(() => { logger.warn('cyclic', { cycle }) })
  t.match(lines[0], { level: 40, msg: 'cyclic', fieldsDropped: /circular/i })
  t.notOk('cycle' in lines[0])

  logger.info('mine', { level: 'x', time: 'y', msg: 'z', constructor: 'kept', nested: { error: new RangeError('deep'), n: 2n } })
  t.match(lines[1], { level: 30, msg: 'mine', nested: { error: 'RangeError: deep', n: '2' } })
  t.equal(lines[1].constructor, 'kept', 'only the entry\'s own three names are reserved')
  t.type(lines[1].time, 'number')

  const readable: string[] = []
  const plain = sdkLogger(createLogger({ write: (line) => { readable.push(line) } }))
  t.doesNotThrow(() => { plain.info('cyclic', { cycle }) })
  t.match(readable[0], /^\[flowport\] cyclic \{"fieldsDropped":".*circular/i)
})
