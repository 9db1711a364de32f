/**
 * Schemas of the rollout routes under /deployments (docs/deploys.md): the engine's worker
 * deployments, their versions with each one's state, and the changes of which version new runs go to.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Nullable, QueryTextSchema, ref } from './common.js'
import { Literals } from './status.js'
import { DEPLOYMENT_NAME, WorkerDeploymentVersionSchema } from './deployment-version.js'
import { IF_MATCH_PATTERN } from '../plugins/http/conditional/schema.js'

/** A nullable field with its description on the union (where OpenAPI readers look for it). */
const NullableOf = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description })
const NullableDateTime = (description: string) => Nullable(Type.String({ format: 'date-time', description }))

export const DeploymentParamsSchema = Type.Object({
  deploymentName: Type.String({ ...DEPLOYMENT_NAME, description: 'The worker deployment (a worker\'s SERVICE_WORKER_DEPLOYMENT_NAME, by default its catalog id): no `.` or `:`, not starting with `__`' })
}, { $id: 'DeploymentParams' })

export const DeploymentChangeHeadersSchema = Type.Object({
  'if-match': Type.Optional(Type.String({
    minLength: 1,
    maxLength: 8192,
    pattern: IF_MATCH_PATTERN,
    description: 'The `ETag` of the deployment as last read (GET, or the answer of a change): when its routing (current or ramping ' +
      'version) changed since, the answer is 412 PreconditionFailedError and nothing changes. `*`: whatever it is now.',
    examples: ['*']
  }))
}, { $id: 'DeploymentChangeHeaders' })

export const BuildIdSchema = Type.String({ ...QueryTextSchema, description: 'A build id of the deployment (a worker\'s SERVICE_WORKER_BUILD_ID, by default derived from its workflow bundle)', examples: ['4f0c2a9e1b7d'] })

export const DEPLOYMENT_VERSION_STATES = ['current', 'ramping', 'draining', 'drained', 'inactive'] as const

export const RampSchema = Type.Object({
  version: ref(WorkerDeploymentVersionSchema),
  percentage: Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'The share of new runs the ramping version receives' }),
  since: NullableDateTime('When the version started ramping (a change of percentage keeps it)')
}, { $id: 'Ramp', additionalProperties: false, description: 'A version receiving a share of new runs besides the current one' })

export const DeploymentVersionStateSchema = Type.Object({
  version: ref(WorkerDeploymentVersionSchema),
  state: Literals(DEPLOYMENT_VERSION_STATES, {
    description: '`current`: new runs go to it; `ramping`: a share of new runs goes to it; `draining`: no longer current or ramping, ' +
      'and runs pinned to it are still open; `drained`: no longer current or ramping and no pinned run is open: its workers can be ' +
      'stopped; `inactive`: never current or ramping yet (its workers poll, no run goes to it). The engine checks drainage ' +
      'periodically, so `draining` lags the last run\'s close.'
  }),
  since: NullableDateTime('When the version entered `state` (for `inactive`: when it was first seen)'),
  rampPercentage: Nullable(Type.Number({ description: 'While `ramping`: the share of new runs it receives' })),
  createdAt: NullableDateTime('When the engine first saw a worker of this version poll'),
  lastCurrentAt: NullableDateTime('When it last became current; null if it never was'),
  drainageCheckedAt: NullableDateTime('While `draining` or `drained`: when the engine last counted its open pinned runs'),
  pollers: Type.Integer({
    minimum: 0,
    description: 'Workers of this version polling for workflow tasks now (seen within 70 s; the fewest over its workflow task queues). ' +
      '0: its runs wait unseen until one of its workers polls again; making it current or ramping it is then refused unless `allowNoPollers`'
  }),
  lastPollTime: NullableDateTime('When a worker of this version last polled for a workflow task, live or not (the engine lists a ' +
    'poller for some minutes after its worker left); null when the engine lists none. As `workers.lastPollTime` of a catalog'),
  openRuns: Type.Integer({
    minimum: 0,
    description: 'Open runs the engine\'s visibility store records on this version (search attribute `TemporalWorkerDeploymentVersion`), ' +
      'Flowport\'s internal runs excepted; eventually consistent'
  })
}, { $id: 'DeploymentVersionState', additionalProperties: false })

export const DeploymentSchema = Type.Object({
  deploymentName: Type.String(),
  createdAt: NullableDateTime('When the engine first saw a worker of the deployment'),
  current: NullableOf(ref(WorkerDeploymentVersionSchema), 'Where new runs go; null: to unversioned workers'),
  currentSince: NullableDateTime('When the current version became current'),
  ramping: NullableOf(ref(RampSchema), 'The version receiving a share of new runs; null: none'),
  lastModifiedBy: Nullable(Type.String({ description: 'The identity of the last change of current or ramping version, as the engine recorded it (`flowport:<key id>` for a change made through this API with auth on)' })),
  versions: Type.Array(ref(DeploymentVersionStateSchema), { description: 'Every version the engine knows, most recently created first' })
}, { $id: 'Deployment', additionalProperties: false, description: 'A worker deployment as the engine holds it: the only record of it' })

export const DeploymentSummarySchema = Type.Object({
  deploymentName: Type.String(),
  createdAt: NullableDateTime('When the engine first saw a worker of the deployment'),
  current: NullableOf(ref(WorkerDeploymentVersionSchema), 'Where new runs go; null: to unversioned workers'),
  ramping: NullableOf(ref(RampSchema), 'The version receiving a share of new runs; null: none'),
  latest: NullableOf(ref(WorkerDeploymentVersionSchema), 'The most recently created version')
}, { $id: 'DeploymentSummary', additionalProperties: false })

export const DeploymentListSchema = Type.Object({
  deployments: Type.Array(ref(DeploymentSummarySchema))
}, { $id: 'DeploymentList', additionalProperties: false })

export const SetCurrentBodySchema = Type.Union([
  Type.Object({
    buildId: BuildIdSchema,
    allowNoPollers: Type.Optional(Type.Boolean({ description: 'Route new runs to the version even though none of its workers polls now (they would wait until one does)' }))
  }, { title: 'SetCurrentVersion', additionalProperties: false, description: 'Make this version current' }),
  Type.Object({
    unversioned: Type.Literal(true, { description: 'No version is current: new runs go to the unversioned workers of the deployment\'s task queues' }),
    allowNoPollers: Type.Optional(Type.Boolean({ description: 'Even though no unversioned worker polls the deployment\'s task queues now (new runs would wait until one does)' }))
  }, { title: 'SetCurrentUnversioned', additionalProperties: false, description: 'Send new runs back to unversioned workers' })
], { $id: 'SetCurrentBody', examples: [{ buildId: '4f0c2a9e1b7d' }, { unversioned: true }] })

export const RampBodySchema = Type.Object({
  buildId: BuildIdSchema,
  percentage: Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'The share of new runs to send to the version (0 < p ≤ 100); stop a ramp with DELETE' }),
  allowNoPollers: Type.Optional(Type.Boolean({ description: 'Route new runs to the version even though none of its workers polls now (they would wait until one does)' }))
}, { $id: 'RampBody', additionalProperties: false, examples: [{ buildId: '4f0c2a9e1b7d', percentage: 30 }] })

export const RollbackBodySchema = Type.Object({
  buildId: Type.Optional(BuildIdSchema),
  allowNoPollers: Type.Optional(Type.Boolean({ description: 'Route new runs to the version even though none of its workers polls now (they would wait until one does)' }))
}, {
  $id: 'RollbackBody',
  additionalProperties: false,
  examples: [{}, { buildId: '4f0c2a9e1b7d' }],
  description: 'Without `buildId`: the version that was current before the current one (of the versions not current now, the one that most recently became current)'
})

export type Deployment = Static<typeof DeploymentSchema>
export type DeploymentSummary = Static<typeof DeploymentSummarySchema>
export type DeploymentList = Static<typeof DeploymentListSchema>
export type DeploymentVersionState = Static<typeof DeploymentVersionStateSchema>
export type Ramp = Static<typeof RampSchema>

export const deploymentSchemas = [
  DeploymentParamsSchema, DeploymentChangeHeadersSchema, RampSchema, DeploymentVersionStateSchema, DeploymentSchema,
  DeploymentSummarySchema, DeploymentListSchema, SetCurrentBodySchema, RampBodySchema, RollbackBodySchema
]
