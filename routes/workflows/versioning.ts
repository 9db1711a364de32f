/** Scope `control`, as stop and reset: the override decides which code runs the run (docs/deploys.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { RunVersioningBodySchema, RunVersioningSchema, type RunVersioningBody } from '../../schemas/run-versioning.js'
import { RunPreconditionHeadersSchema } from '../../plugins/http/conditional/schema.js'
import { latestAndPinned, runCall } from '../latest-and-pinned.js'
import { access } from '../../plugins/app/access/route-access.js'

const setDescription = 'Sets the engine\'s versioning override of an open run, which wins over the behaviour its workers report until ' +
  'it is removed. `pinned` with `version`: the run\'s next workflow tasks go to that version\'s workers, whatever version is ' +
  'current (a run pinned to a version whose workers are gone, attention `versionNotPolled`, moves on). `autoUpgrade`: the run ' +
  'moves to the deployment\'s current version at its next workflow task. The run\'s history must replay on the code it goes to ' +
  '(else its workflow task keeps failing: attention `workflowTaskFailing`); `flowport replay --all` with that code checks it first. ' +
  'The run\'s status shows the override (`versioningOverride`). 400 ValidationError at `/version` for a version the engine does ' +
  'not know on the run\'s catalog; 409 WorkflowAlreadyClosedError for a closed run; 409 DeploymentConflictError when no worker ' +
  'of the version polls the run\'s catalog now (unless `allowNoPollers`). `If-Match` (the status ETag or `"<runId>"`) makes it ' +
  'a 412 PreconditionFailedError, with nothing changed, when the run it would act on is another one.'
const clearDescription = 'Removes the run\'s versioning override: it follows the behaviour its workers report again (the run then ' +
  'stays on the version it is on, if that behaviour is pinned). Answers `versioningOverride: null`; a run without one answers the same. ' +
  '409 WorkflowAlreadyClosedError for a closed run; `If-Match` as for PUT.'

const versioning: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = access('control', 'workflow')
  const headers = ref(RunPreconditionHeadersSchema)

  latestAndPinned<{ Body: RunVersioningBody, Headers: { 'if-match'?: string } }>(fastify, '/versioning', {
    method: 'PUT',
    config,
    description: setDescription,
    latest: { operationId: 'setWorkflowVersioning', summary: 'Move the latest run to a version, or let it follow the current one' },
    pinned: { operationId: 'setRunVersioning', summary: 'Move one run to a version, or let it follow the current one' },
    schema: { headers, body: ref(RunVersioningBodySchema), response: { 200: ref(RunVersioningSchema), ...errorsFor(400, 401, 403, 404, 409, 412, 413, 415, 500, 502, 503) } }
  }, async (request, reply) => await fastify.control.setRunVersioning({ ...runCall(request, reply), body: request.body }))

  latestAndPinned<{ Headers: { 'if-match'?: string } }>(fastify, '/versioning', {
    method: 'DELETE',
    config,
    description: clearDescription,
    latest: { operationId: 'clearWorkflowVersioning', summary: 'Remove the latest run\'s versioning override' },
    pinned: { operationId: 'clearRunVersioning', summary: 'Remove one run\'s versioning override' },
    schema: { headers, response: { 200: ref(RunVersioningSchema), ...errorsFor(400, 401, 403, 404, 409, 412, 500, 502, 503) } }
  }, async (request, reply) => await fastify.control.clearRunVersioning(runCall(request, reply)))
}

export default versioning
