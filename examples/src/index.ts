/**
 * The package entry the worker reads: static re-exports only, so discovery can follow each one to
 * its workflow file without running anything.
 */
export { approval } from './approval/workflow.js'
export { explode } from './explode/workflow.js'
export { flaky } from './flaky/workflow.js'
export { hello } from './hello/workflow.js'
export { parent } from './parent/workflow.js'
export { pipeline } from './pipeline/workflow.js'
export { relay } from './relay/workflow.js'
export { scored } from './scored/workflow.js'
export { sleepy } from './sleepy/workflow.js'
export { triage } from './triage/workflow.js'
