/**
 * The default build id (worker/src/runtime/deployment-version.ts): the same code gives the same
 * id however often it is bundled (each bundle's text differs); changed code gives another. (Two
 * checkouts at different paths giving one id was checked by hand: see the commit adding this.)
 */
import t from 'tap'
import { buildWorkflowBundle } from '../src/index.js'
import { defaultBuildId, deploymentVersion } from '../src/runtime/deployment-version.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

const bundle = async (workflowsDir: string) =>
  (await buildWorkflowBundle({ catalogId: 'ids', workflowsDir, packagesFrom: t.testdir({}), logger: recordingLogger() })).bundle

t.test('same code, same id; changed code, another id', async (t) => {
  const v1 = await bundle(fixture('catalog-v1'))
  const again = await bundle(fixture('catalog-v1'))
  t.not(v1.code, again.code, 'two bundles of one code differ as text (each entry is written to a fresh temp dir)')
  t.equal(defaultBuildId(v1.code), defaultBuildId(again.code), 'yet have one build id')
  t.match(defaultBuildId(v1.code), /^[0-9a-f]{12}$/)

  t.not(defaultBuildId((await bundle(fixture('catalog-v2'))).code), defaultBuildId(v1.code), 'changed workflow code has another id')
})

t.test('the version a worker polls as', async (t) => {
  t.equal(deploymentVersion({ catalogId: 'c' }, { code: '' }), null, 'unversioned without settings')
  t.same(deploymentVersion({ catalogId: 'c', versioning: { buildId: 'b1' } }, { code: '' }), { deploymentName: 'c', buildId: 'b1' }, 'the catalog names the deployment')
  t.same(deploymentVersion({ catalogId: 'c', versioning: { deploymentName: 'd' } }, { code: 'x' }), { deploymentName: 'd', buildId: defaultBuildId('x') })
})
