/**
 * Both OpenAPI documents, as the test stack serves them (GET /openapi.json and the typed
 * GET /workflow/catalog/openapi.json), pass Redocly CLI's `recommended` rules (pinned
 * devDependency @redocly/cli) with no error; each rule that still warns is listed below with its
 * reason, and a listed rule that no longer warns must leave the list.
 */
import t from 'tap'
import { resolve } from 'node:path'
import { runCommand } from './helpers/client-generators.js'
import { conformanceStack } from './helpers/conformance.js'

/** Rules allowed to warn, and why. */
const KNOWN_WARNINGS: Record<string, string> = {
  'no-ambiguous-paths': 'the typed handler paths (/workflow/{id}/signal/approve) sit beside the generic ones (/workflow/{id}/signal/{name}) by design ' +
    '(docs/catalog-openapi.md), and the catalog\'s routes overlap /workflow/{id}/…, whose reserved ids are refused at start',
  'operation-4xx-response': 'the completion webhook is a callback: its operation is the receiver\'s endpoint, whose refusals are the receiver\'s own ' +
    '(any answer but a 2xx is a failed delivery, docs/webhooks.md), not an operation of this API'
}

interface Problem { ruleId: string, severity: 'error' | 'warn', message: string, location: Array<{ pointer: string }> }

t.test('both documents pass Redocly\'s recommended rules: no error, and only the listed rules warn', async (t) => {
  const stack = await conformanceStack(t, 'lint')
  for (const [name, document] of Object.entries(stack.documents)) {
    const linted = await runCommand(resolve('node_modules/.bin/redocly'), ['lint', '--extends=recommended', '--format=json', document], {
      // No telemetry or update check: CI reaches no host but the registries.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }
    })
    const json = linted.stdout.slice(linted.stdout.indexOf('{'))
    const { problems } = JSON.parse(json) as { problems: Problem[] }
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`)
    t.same(errors, [], `${name}: no error`)
    const warned = [...new Set(problems.filter((p) => p.severity !== 'error').map((p) => p.ruleId))].sort()
    t.same(warned.filter((rule) => !(rule in KNOWN_WARNINGS)), [], `${name}: every rule that warns is listed`,
      { warnings: problems.filter((p) => !(p.ruleId in KNOWN_WARNINGS)).map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`) })
    t.same(Object.keys(KNOWN_WARNINGS).filter((rule) => !warned.includes(rule)), [], `${name}: every listed rule still warns`)
  }
})
