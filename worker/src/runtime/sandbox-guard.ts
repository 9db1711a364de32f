/**
 * Keeps the workflow sandbox clean while webpack bundles: step modules and Node built-ins are
 * refused with messages naming the importing file. Types are loose on purpose: webpack's own
 * types are not a dependency of this package.
 */
import { builtinModules } from 'node:module'

/** Temporal ships sandbox versions of these; every other Node built-in is refused. */
const SANDBOX_BUILTINS = new Set(['assert', 'url', 'util'])
const NODE_BUILTINS = new Set(builtinModules)

/**
 * A webpack plugin that keeps step modules and Node built-ins out of the bundle: it records who
 * imports one (for a message naming both files) and drops the import.
 */
export function sandboxGuard (stepModules: Set<string>, problems: string[]): { apply: (compiler: any) => void } {
  return {
    apply (compiler) {
      compiler.hooks.normalModuleFactory.tap('flowport-sandbox-guard', (factory: any) => {
        factory.hooks.beforeResolve.tap('flowport-sandbox-guard', (data: any) => {
          const request = String(data.request ?? '').replace(/^node:/, '')
          const issuer = String(data.contextInfo?.issuer ?? '')
          if (NODE_BUILTINS.has(request) && !SANDBOX_BUILTINS.has(request) && !issuer.includes('node_modules')) {
            problems.push(`${issuer} imports the Node built-in '${request}'; workflow code runs in a sandbox without Node APIs: do that work in a step`)
            return false
          }
          return undefined
        })
        factory.hooks.afterResolve.tap('flowport-sandbox-guard', (data: any) => {
          const resource: unknown = data.createData?.resource
          if (typeof resource === 'string' && stepModules.has(resource)) {
            const issuer = String(data.contextInfo?.issuer ?? 'workflow code')
            problems.push(`${issuer} imports the step module ${resource} as a value; workflow code must import steps with \`import type\` and call them through useSteps()`)
            return false
          }
          return undefined
        })
      })
    }
  }
}

/** The "ERROR in …" blocks of webpack's report, without stack frames. */
export function webpackErrors (report: string): string {
  const blocks = report.split(/\n(?=ERROR in )/).filter((b) => b.startsWith('ERROR in '))
  return blocks.map((b) => b.split('\n').filter((l) => !/^\s+at /.test(l) && !l.startsWith('webpack ')).join('\n').trim()).join('\n\n')
}
