/**
 * Compiles one file with tsc, strict, as a client generated from a typed OpenAPI document is
 * compiled by its users (test/catalog-openapi.test.ts, test/python-worker.test.ts).
 */
import { execFile } from 'node:child_process'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const TSC = resolve('node_modules/.bin/tsc')

/** tsc's exit code and output for `file` in `dir` (the generated types beside it). */
export async function compileTypeScript (dir: string, file: string): Promise<{ code: number, output: string }> {
  try {
    const { stdout } = await run(TSC, ['--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
      '--skipLibCheck', join(dir, file)], { cwd: dir })
    return { code: 0, output: stdout }
  } catch (err) {
    const failed = err as { code: number, stdout: string }
    return { code: failed.code, output: failed.stdout }
  }
}
