/**
 * What every example worker's test checks first (test/go-worker, test/java-worker): its declared
 * catalog served while it polls, and `greet` run, its result read back under the catalog's name,
 * and an input the declared schema refuses.
 */
import type { Test } from 'tap'
import type { App } from '../../app.js'
import { call, eventually } from './workflows.js'

export function declaredBasics (t: Test, appOf: () => App, catalog: string, language: string): void {
  const get = async (t: Test, url: string, route: string) => await call(t, appOf(), { method: 'GET', url, route })
  const run = async (t: Test, input: unknown) => await call(t, appOf(), { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { catalog, workflowName: 'greet', input } })

  t.test(`the declared catalog is served, with its ${language} worker polling`, async (t) => {
    const res = await eventually(async () => await get(t, `/workflow/catalog/${catalog}`, '/workflow/catalog/{catalogId}'), (r) => r.body?.workers?.polling === true)
    t.equal(res.status, 200)
    t.equal(res.body.declared, true)
    t.same(res.body.workflows.map((w: { name: string }) => w.name), ['greet', 'order', 'refund'])
  })

  t.test('run and result', async (t) => {
    const ran = await run(t, { name: 'Ada' })
    t.equal(ran.status, 200)
    t.match(ran.body, { status: 'completed', output: { greeting: 'Hello, Ada!' } })
    const result = await get(t, `/workflow/${ran.body.workflowId as string}/result`, '/workflow/{id}/result')
    t.equal(result.status, 200)
    t.match(result.body, { status: 'completed', workflowName: 'greet', input: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' } }, 'named as clients name it, not by its Temporal type')
    t.equal((await run(t, { name: '' })).status, 400, 'the input is validated against the declared schema')
  })
}
