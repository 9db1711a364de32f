/**
 * Ctrl-C during `run` or `tail` detaches: the stream is closed, the run goes on, and the command
 * says how to follow it again (exit 130). Repeated signals while detaching are ignored.
 */
import { EXIT } from './exit-codes.js'
import { info } from './output.js'

export interface Interrupt {
  signal: AbortSignal
  readonly fired: boolean
  dispose: () => void
}

export function onInterrupt (): Interrupt {
  const controller = new AbortController()
  const handler = () => { controller.abort(new Error('interrupted')) }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    signal: controller.signal,
    get fired () { return controller.signal.aborted },
    dispose: () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  }
}

export function detached (workflowId: string): number {
  info(`Detached: workflow ${workflowId} keeps running. Follow it with: flowport tail ${workflowId}`)
  return EXIT.interrupted
}
