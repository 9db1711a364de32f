/**
 * GET /workflow/{id}/input and its pinned form: the input a run was started with (the latest run
 * for the unpinned form; after continue-as-new, the input the newest run received).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowInputSchema } from '../../schemas/workflow.js'
import { describeRun } from '../../lib/execution.js'
import { readRunInput } from '../../lib/run-history.js'

async function readInput (fastify: FastifyInstance, workflowId: string, runId?: string) {
  const execution = await describeRun(fastify, { workflowId, runId })
  const run = { workflowId, runId: execution.runId }
  return { ...run, input: await readRunInput(fastify, run) }
}

const input: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: ref(WorkflowInputSchema), ...errorsFor(400, 401, 404, 500, 503) }

  fastify.get('/workflow/:id/input', {
    schema: { tags: ['workflows'], operationId: 'getWorkflowInput', summary: 'Start input of the latest run of a workflow id', params: ref(WorkflowParamsSchema), response }
  }, async (request) => await readInput(fastify, request.params.id))

  fastify.get('/workflow/:id/runs/:rid/input', {
    schema: { tags: ['workflows'], operationId: 'getRunInput', summary: 'Start input of one run', params: ref(RunParamsSchema), response }
  }, async (request) => await readInput(fastify, request.params.id, request.params.rid))
}

export default input
