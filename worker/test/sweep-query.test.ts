/**
 * The trace keeper's sweep query is one the engine accepts for any catalog id the API accepts:
 * quotes and backslashes in the id stay inside its literal.
 */
import t from 'tap'
import { sweepQuery } from '../src/trace/keeper.js'
import { connectClient } from './helpers/engine.js'

t.test('a catalog id with a backslash or a quote makes a query the engine runs', async (t) => {
  const client = await connectClient(t)
  const since = new Date().toISOString()
  for (const catalog of ['ends-with\\', 'it\'s', 'back\\\'slash', '"double"']) {
    const listed: string[] = []
    for await (const run of client.workflow.list({ query: sweepQuery(catalog, since) })) listed.push(run.workflowId)
    t.same(listed, [], `the engine runs the query of ${JSON.stringify(catalog)}`)
  }
})
