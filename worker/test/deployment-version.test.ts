/**
 * The default build id (worker/src/runtime/deployment-version.ts): the same code gives the same
 * id however often it is bundled (each bundle's text differs), from whatever folder the worker
 * starts, and wherever the project is; changed code gives another.
 */
import t from 'tap'
import { cpSync } from 'node:fs'
import { join } from 'node:path'
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

t.test('the same code from two folders and in two places, one id', async (t) => {
  const cwd = process.cwd()
  t.teardown(() => { process.chdir(cwd) })
  // From the repository's root, from the workflows' own folder and from an unrelated one.
  const fromRoot = defaultBuildId((await bundle(fixture('catalog-v1'))).code)
  for (const dir of [fixture('catalog-v1'), t.testdir({})]) {
    process.chdir(dir)
    t.equal(defaultBuildId((await bundle(fixture('catalog-v1'))).code), fromRoot, `started from ${dir}`)
  }
  process.chdir(cwd)

  // One project at two paths (two checkouts, two image layouts): its package.json names it.
  const places = t.testdir({ one: { app: { 'package.json': '{"name":"app","version":"1.0.0","type":"module"}' } }, two: { deeper: { app: { 'package.json': '{"name":"app","version":"1.0.0","type":"module"}' } } } })
  const one = join(places, 'one/app')
  const two = join(places, 'two/deeper/app')
  for (const app of [one, two]) cpSync(fixture('catalog-v1'), join(app, 'workflows'), { recursive: true })
  const atOne = defaultBuildId((await bundle(join(one, 'workflows'))).code)
  t.equal(defaultBuildId((await bundle(join(two, 'workflows'))).code), atOne, 'the project at another path')
  t.not(atOne, fromRoot, 'the package and its version are part of the id')
})

t.test('the version a worker polls as', async (t) => {
  t.equal(deploymentVersion({ catalogId: 'c' }, { code: '' }), null, 'unversioned without settings')
  t.same(deploymentVersion({ catalogId: 'c', versioning: { buildId: 'b1' } }, { code: '' }), { deploymentName: 'c', buildId: 'b1' }, 'the catalog names the deployment')
  t.same(deploymentVersion({ catalogId: 'c', versioning: { deploymentName: 'd' } }, { code: 'x' }), { deploymentName: 'd', buildId: defaultBuildId('x') })
})
