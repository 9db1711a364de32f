/**
 * Rollout under /deployments (docs/deploys.md): the engine's worker deployments and their versions,
 * and which version new runs go to: make one current, ramp a share of new runs to one, stop a ramp,
 * roll back. Reading needs scope `read` (what it shows, an unlimited key can list run by run); a change
 * needs `control` (it decides which code runs every new run); a key limited to catalogs or workflows
 * is refused either way (a deployment's versions serve every workflow of their task queues). Each change is made with the key's engine identity, which the
 * engine records as the deployment's last modifier (`lastModifiedBy`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from '@sinclair/typebox'
import { errorsFor, ref, response } from '../../schemas/common.js'
import {
  DeploymentChangeHeadersSchema, DeploymentListSchema, DeploymentParamsSchema, DeploymentSchema, RampBodySchema, RollbackBodySchema, SetCurrentBodySchema
} from '../../schemas/deployments.js'
import { withEtag } from '../../plugins/http/conditional/schema.js'
import type { ChangeOptions, TaggedDeployment } from '../../plugins/app/deployments/index.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../plugins/app/access/route-access.js'
import { optionalBody, optionalBodySchema } from '../../lib/http/optional-body.js'

const tags = ['deployments']
const changed = 'Answers the deployment as the engine holds it after the change, with its new `ETag`. With `If-Match`: 412 ' +
  'PreconditionFailedError when the deployment was changed since that ETag was served (nothing changes).'

/** What every change carries from its request: the key's engine identity, the client's going, its If-Match. */
const change = (request: FastifyRequest, reply: FastifyReply): ChangeOptions =>
  ({ identity: engineIdentity(request), signal: clientGone(reply), ifMatch: request.headers['if-match'] })

const deployments: FastifyPluginAsyncTypebox = async (fastify) => {
  const reading = access('read', 'deployment')
  const config = access('control', 'deployment')
  const params = ref(DeploymentParamsSchema)
  const deployment = withEtag(DeploymentSchema, 'The deployment and its versions, as the engine holds them; `ETag` is its conflict token: send it as `If-Match` with a change')
  const headers = ref(DeploymentChangeHeadersSchema)
  /** A change with a body answers the deployment with its new ETag, unless `If-Match` names an older one. */
  const changeSchema = <Body extends TSchema>(body: Body, { description, ...doc }: { operationId: string, summary: string, description: string }) => ({
    tags,
    ...doc,
    description: description + changed,
    params,
    body: ref(body),
    headers,
    response: { 200: deployment, ...errorsFor(400, 401, 403, 404, 409, 412, 413, 415, 500, 502, 503) }
  })
  const answer = async (reply: FastifyReply, tagged: Promise<TaggedDeployment>) => {
    const { etag, deployment } = await tagged
    reply.header('etag', etag)
    return deployment
  }

  fastify.get('/deployments', {
    config: reading,
    schema: {
      tags,
      operationId: 'listDeployments',
      summary: 'List the worker deployments',
      description: 'Every worker deployment the engine knows (a deployment appears once a versioned worker polled), with its current and ramping version.',
      response: { 200: response(DeploymentListSchema, 'The worker deployments the engine knows'), ...errorsFor(401, 403, 500, 502, 503) }
    }
  }, async (_request, reply) => await fastify.deployments.list(clientGone(reply)))

  fastify.get('/deployments/:deploymentName', {
    config: reading,
    schema: {
      tags,
      operationId: 'getDeployment',
      summary: 'A worker deployment and its versions',
      description: 'Each version with its state (current, ramping with its percentage, draining, drained, inactive), when it entered it, ' +
        'and how many runs are open on it. A version is drained once no run pinned to it is open: its workers can then be stopped.',
      params,
      response: { 200: deployment, ...errorsFor(400, 401, 403, 404, 500, 502, 503) }
    }
  }, async (request, reply) => await answer(reply, fastify.deployments.show(request.params.deploymentName, clientGone(reply))))

  fastify.put('/deployments/:deploymentName/current', {
    config,
    schema: changeSchema(SetCurrentBodySchema, {
      operationId: 'setCurrentDeploymentVersion',
      summary: 'Make a version current (or none: unversioned workers): new runs go to it',
      description: 'Runs started from now on go to this version (a ramp to it ends). Open runs pinned to the previous version stay ' +
        'on it, which drains; `autoUpgrade` runs move. `{unversioned: true}` instead: no version is current, new runs go to the ' +
        'unversioned workers of the deployment\'s task queues (back from versioning; a ramp stays). 409 DeploymentConflictError when no worker of the version ' +
        '(or no unversioned worker) polls now (unless `allowNoPollers`), or when the engine refuses (e.g. no worker of the version polls every task queue of the current one). '
    })
  }, async (request, reply) =>
    await answer(reply, fastify.deployments.setCurrent(request.params.deploymentName, 'buildId' in request.body ? request.body.buildId : null, { ...change(request, reply), allowNoPollers: request.body.allowNoPollers })))

  fastify.put('/deployments/:deploymentName/ramp', {
    config,
    schema: changeSchema(RampBodySchema, {
      operationId: 'rampDeploymentVersion',
      summary: 'Send a share of new runs to a version',
      description: 'From now on `percentage` of new runs go to this version and the rest to the current one; a new call changes the ' +
        'share or the version. 409 DeploymentConflictError when no worker of the version polls now (unless `allowNoPollers`), or when ' +
        'the engine refuses (e.g. the version is the current one). '
    })
  }, async (request, reply) =>
    await answer(reply, fastify.deployments.setRamp(request.params.deploymentName, request.body, { ...change(request, reply), allowNoPollers: request.body.allowNoPollers })))

  fastify.delete('/deployments/:deploymentName/ramp', {
    config,
    schema: {
      tags,
      operationId: 'stopDeploymentRamp',
      summary: 'Stop a ramp: every new run goes to the current version',
      description: 'Runs already started on the ramping version stay on it. ' + changed,
      params,
      headers,
      response: { 200: deployment, ...errorsFor(400, 401, 403, 404, 409, 412, 500, 502, 503) }
    }
  }, async (request, reply) =>
    await answer(reply, fastify.deployments.setRamp(request.params.deploymentName, undefined, change(request, reply))))

  fastify.post('/deployments/:deploymentName/rollback', {
    config,
    ...optionalBody,
    schema: {
      ...optionalBodySchema,
      ...changeSchema(RollbackBodySchema, {
        operationId: 'rollbackDeployment',
        summary: 'Make the previous version current again',
        description: 'Without `buildId`, the version to go back to is, of the versions not current now, the one that most recently ' +
          'became current (the engine\'s record of each version); with it, that version. A ramp is left as it is. 409 ' +
          'DeploymentConflictError when no version was current before, when no worker of that version polls now (unless ' +
          '`allowNoPollers`: start its workers first), or when the engine refuses. '
      })
    }
  }, async (request, reply) =>
    await answer(reply, fastify.deployments.rollback(request.params.deploymentName, request.body?.buildId, { ...change(request, reply), allowNoPollers: request.body?.allowNoPollers })))
}

export default deployments
