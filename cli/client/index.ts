/**
 * The client commands of `flowport`, built on @flowport/client (docs/cli.md).
 */
import type { Command } from 'commander'
import { registerControl } from './control.js'
import { registerDeploy } from './deploy.js'
import { registerEval } from './eval.js'
import { registerHandlers } from './handlers.js'
import { registerInspect } from './inspect.js'
import { registerList } from './list.js'
import { registerReset } from './reset.js'
import { registerRun } from './run.js'
import { registerSchedule } from './schedule.js'
import { registerTail } from './tail.js'

export function registerClientCommands (program: Command): void {
  registerRun(program)
  registerTail(program)
  registerInspect(program)
  registerHandlers(program)
  registerControl(program)
  registerList(program)
  registerSchedule(program)
  registerReset(program)
  registerEval(program)
  registerDeploy(program)
}
