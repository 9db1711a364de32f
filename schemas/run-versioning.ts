/**
 * Schemas of a run's versioning override (docs/deploys.md, "Moving a run to another version"):
 * the engine's override of the versioning behaviour a run's workers report, set on one open run
 * to move it to another worker deployment version (pinned there) or to let it follow the current
 * version (autoUpgrade), and removed again.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Nullable, ref } from './common.js'
import { Literals } from './status.js'
import { WorkerDeploymentVersionSchema } from './deployment-version.js'

export const VERSIONING_OVERRIDE_BEHAVIORS = ['pinned', 'autoUpgrade'] as const

export const VersioningOverrideSchema = Type.Object({
  behavior: Literals(VERSIONING_OVERRIDE_BEHAVIORS, {
    description: '`pinned`: the run runs on `version` only, whatever version is current; `autoUpgrade`: it moves to the deployment\'s ' +
      'current version at its next workflow task'
  }),
  version: Nullable(ref(WorkerDeploymentVersionSchema))
}, {
  $id: 'VersioningOverride',
  additionalProperties: false,
  description: 'The engine\'s versioning override of a run: it wins over the behaviour the run\'s workers report, until it is removed ' +
    '(`version` is null for `autoUpgrade`). A start that names its `version` sets a `pinned` one.'
})

const allowNoPollers = Type.Optional(Type.Boolean({
  description: 'Move the run even though none of the version\'s workers polls its catalog now (it then waits until one does)'
}))

export const RunVersioningBodySchema = Type.Union([
  Type.Object({
    behavior: Type.Literal('pinned'),
    version: ref(WorkerDeploymentVersionSchema),
    allowNoPollers
  }, { title: 'PinRunToVersion', additionalProperties: false, description: 'Pin the run to `version`: its next workflow tasks go to that version\'s workers' }),
  Type.Object({
    behavior: Type.Literal('autoUpgrade')
  }, { title: 'RunFollowsCurrentVersion', additionalProperties: false, description: 'Let the run follow the current version: it moves at its next workflow task' })
], {
  $id: 'RunVersioningBody',
  description: 'The versioning override to set. The run\'s workflow code must replay on the version it goes to (`flowport replay --all` with that code checks it)',
  examples: [{ behavior: 'pinned', version: { deploymentName: 'main', buildId: '9b1e07c3d2a4' } }, { behavior: 'autoUpgrade' }]
})

export const RunVersioningSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run whose override changed' }),
  versioningOverride: Nullable(ref(VersioningOverrideSchema))
}, { $id: 'RunVersioning', additionalProperties: false, description: 'The run\'s versioning override as the engine holds it after the change; null: none' })

export type VersioningOverride = Static<typeof VersioningOverrideSchema>
export type RunVersioningBody = Static<typeof RunVersioningBodySchema>
export type RunVersioning = Static<typeof RunVersioningSchema>

export const runVersioningSchemas = [RunVersioningBodySchema, RunVersioningSchema]
