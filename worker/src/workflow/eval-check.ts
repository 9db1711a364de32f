/**
 * The check the API waits for before it starts an eval run (core/src/eval.ts,
 * EVAL_CHECK_WORKFLOW_TYPE): one activity on the catalog's worker, where the dataset files are,
 * answers what is wrong with the request, or null.
 */
import { proxyActivities } from '@temporalio/workflow'
import { EVAL_CHECK_ACTIVITY, type EvalCheck, type EvalRunInput } from '@flowport/core/eval'

const activities = proxyActivities<{ [EVAL_CHECK_ACTIVITY]: (input: EvalRunInput) => Promise<EvalCheck> }>({
  startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 }
})

export async function evalCheckWorkflow (input: EvalRunInput): Promise<EvalCheck> {
  return await activities[EVAL_CHECK_ACTIVITY](input)
}
