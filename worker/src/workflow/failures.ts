/**
 * Turning errors thrown by user workflow code into Temporal failures. Temporal treats a plain
 * `Error` thrown by workflow code as a bug and retries the workflow task forever, which leaves an
 * API caller with a run that never ends; Flowport fails the run instead, keeping the error's name.
 */
import { ContinueAsNew } from '@temporalio/workflow'
import { failureFrom } from '../common/failure.js'

export function toFailure (err: unknown): unknown {
  // Continue-as-new travels as a thrown value; it is not a failure.
  return err instanceof ContinueAsNew ? err : failureFrom(err)
}
