/**
 * The generated entry carries each workflow's versioning mode (setWorkflowOptions), so a prebuilt
 * bundle's stamp (entryHash) no longer matches once a mode changes, and the worker bundles afresh.
 */
import t from 'tap'
import { generateEntry } from '../src/runtime/bundle.js'
import { entryHash } from '../src/runtime/prebuilt-bundle.js'
import { loadProject } from '../src/runtime/project.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

t.test('a changed versioning mode changes the entry and its hash', async (t) => {
  const { registry, manifest } = await loadProject({ catalogId: 'entry', workflowsDir: fixture('catalog-v1'), packagesFrom: t.testdir({}), logger: recordingLogger() })
  const moving = { ...registry, workflows: registry.workflows.map((w) => ({ ...w, meta: { ...w.meta, versioning: 'autoUpgrade' as const } })) }
  t.match(generateEntry(registry, manifest), /setWorkflowOptions\(versioningOptions\("pinned"\), e0\)/, 'pinned by default')
  t.match(generateEntry(moving, manifest), /setWorkflowOptions\(versioningOptions\("autoUpgrade"\), e0\)/)
  t.match(generateEntry(registry, manifest), /setWorkflowOptions\(versioningOptions\("autoUpgrade"\), __flowport_catalog\)/, 'the catalog workflow follows the current version')
  t.not(entryHash(moving, manifest), entryHash(registry, manifest), 'a bundle prebuilt before the change is not used')
})
