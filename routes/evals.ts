/** Scoped like runs (docs/evals.md): a key limited to catalogs or workflows reaches only the evals of its workflows. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { workflowOfEvalId } from '@flowport/core/eval'
import { errorsFor, ref, response } from '../schemas/common.js'
import { EvalParamsSchema, EvalStartedSchema, EvalRunSchema, EvalRunsSchema, EvalsQuerySchema, StartEvalBodySchema } from '../schemas/evals.js'
import { clientGone } from '../lib/abort.js'
import { access, engineIdentity } from '../plugins/app/access/route-access.js'

const evals: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/evals', {
    config: access('run', 'start'),
    schema: {
      tags: ['evals'],
      operationId: 'startEval',
      summary: 'Start an eval run of a workflow over its datasets',
      description: 'Runs every case (or those `datasets` names) of the workflow\'s datasets as a child run of the eval run, or, with ' +
        '`cached`, takes each case\'s cached output; then runs the eval\'s evaluators as steps and compares the verdicts with the ' +
        'previous eval run of the workflow. Answers at once with the eval run\'s id: read the report with GET /evals/{evalId}. ' +
        '404 WorkflowNotFoundError: the workflow is not in the catalog, or has no eval. 400 ValidationError, before any eval run ' +
        'starts: an unknown dataset name (issue at `/datasets`), or `cached` with a case that has no cached output (`/cached`); the ' +
        'catalog\'s worker checks the request against its dataset files first (when it does not answer within 15 s the eval run ' +
        'starts, and fails with the same message).',
      body: ref(StartEvalBodySchema),
      response: {
        202: response(EvalStartedSchema, 'The eval run started', { location: { type: 'string', description: 'The eval run: `/evals/{evalId}`' } }),
        ...errorsFor(400, 401, 403, 404, 413, 415, 500, 502, 503)
      }
    }
  }, async (request, reply) => {
    const started = await fastify.evals.start(request.body, { identity: engineIdentity(request), signal: clientGone(reply) })
    return await reply.code(202).header('location', `/evals/${encodeURIComponent(started.evalId)}`).send(started)
  })

  fastify.get('/evals', {
    config: access('read', 'runs'),
    schema: {
      tags: ['evals'],
      operationId: 'listEvals',
      summary: 'List the eval runs of a workflow, most recent first',
      description: 'From the engine\'s visibility store: a run started a moment ago may be missing. `verdict` and `totals` are null until a run completed.',
      querystring: ref(EvalsQuerySchema),
      response: { 200: response(EvalRunsSchema, 'The workflow\'s eval runs, most recent first'), ...errorsFor(400, 401, 403, 500, 502, 503) }
    }
  }, async (request, reply) => await fastify.evals.list(request.query, clientGone(reply)))

  fastify.get('/evals/:evalId', {
    config: access('read', 'eval'),
    schema: {
      tags: ['evals'],
      operationId: 'getEval',
      summary: 'An eval run and, once it completed, its report',
      description: 'The report: per case its verdict, its run (linked), the output evaluated and, per evaluator, the value, verdict and ' +
        'reasoning; the totals; and which cases got better or worse than in the previous eval run. `report` is null while the eval ' +
        'runs, and with `error` when it failed. 404 WorkflowNotFoundError: no eval run has this id.',
      params: ref(EvalParamsSchema),
      response: { 200: ref(EvalRunSchema), ...errorsFor(400, 401, 403, 404, 500, 502, 503) }
    }
  }, async (request, reply) => {
    const { evalId } = request.params
    return await fastify.evals.read(evalId, workflowOfEvalId(evalId) ?? '', clientGone(reply))
  })
}

export default evals
