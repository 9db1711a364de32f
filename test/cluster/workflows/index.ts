/**
 * Workflows of the cluster tests only (scripts/test-cluster.ts serves them with SERVICE_WORKFLOWS_DIR).
 */
export { spread } from './spread/workflow.js'
export { retried } from './retried/workflow.js'
export { echo } from './echo/workflow.js'
