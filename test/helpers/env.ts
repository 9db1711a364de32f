/**
 * What the test runner (scripts/test.ts) provides: one real Temporal dev server and a worker
 * serving the examples on FLOWPORT_TEST_CATALOG. Missing means the run is broken: fail, never skip.
 */
export function engineAddress (): string {
  const address = process.env.TEMPORAL_ADDRESS
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test`, which starts the engine')
  return address
}

export function testCatalog (): string {
  const catalog = process.env.FLOWPORT_TEST_CATALOG
  if (!catalog) throw new Error('FLOWPORT_TEST_CATALOG is not set: run the tests with `npm test`, which starts the example worker')
  return catalog
}
