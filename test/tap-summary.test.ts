import t from 'tap'
import { failures, summarize } from '../scripts/tap-summary.js'

const failing = [
  '# Subtest: test/a.test.ts',
  '    # Subtest: reads a run',
  '        ok 1 - the status',
  '        not ok 2 - the result',
  '          ---',
  '          found: 1',
  '          wanted: 2',
  '          ...',
  '        1..2',
  '    not ok 1 - reads a run',
  'not ok 1 - test/a.test.ts',
  '# { total: 2, pass: 1, fail: 1 }'
].join('\n')

t.test('a failed assertion is listed under its subtest and file, with its diagnostics', async (t) => {
  t.same(failures(failing), [
    '        not ok 2 - the result',
    '          ---',
    '          found: 1',
    '          wanted: 2',
    '          ...',
    '    not ok 1 - reads a run',
    'not ok 1 - test/a.test.ts'
  ])
  const summary = summarize(failing, 1).split('\n')
  t.equal(summary[0], '# failed tests:')
  t.equal(summary.at(-1), '1 passed, 1 failed', 'the totals stay the last line')
})

t.test('a long diagnostics block is cut, saying how much', async (t) => {
  const values = Array.from({ length: 40 }, (_, i) => `  value${i}: ${i}`)
  const listed = failures(['not ok 1 - big', '  ---', ...values, '  ...', '1..1'].join('\n'))
  t.equal(listed.length, 1 + 24 + 1)
  t.equal(listed.at(-1), '  (18 more lines)')
})

t.test('a passing run prints only its totals', async (t) => {
  t.equal(summarize('ok 1 - test/a.test.ts\n# { total: 3, pass: 3 }\n', 0), '3 passed, 0 failed')
  t.equal(summarize('', 1), '0 passed, 1 failed', 'no totals and a failing exit is a failure')
})
