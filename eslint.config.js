// Lint: neostandard (the style the code is written in) plus the type-aware promise rules of
// typescript-eslint, because an unawaited engine call or a promise handed to a callback that
// ignores it fails silently at run time, never at compile time.
import neostandard from 'neostandard'

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '.flowport/**', '.tap/**', 'coverage/**', 'openapi/openapi.json', 'client/src/generated/**'] },
  ...neostandard({ ts: true }),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      // tap collects the promise of every subtest itself; awaiting each one would serialize them.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafePromises: [{ from: 'package', package: '@tapjs/core', name: 'PromiseWithSubtest' }]
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `void promise` is how code says "fire and forget on purpose" to no-floating-promises.
      'no-void': ['error', { allowAsStatement: true }],
      // Promise callbacks are named for what they signal (`done`, `exited`), not `resolve`.
      'promise/param-names': 'off'
    }
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox, which has no Node built-ins.
    files: ['worker/src/workflow/**/*.ts', 'examples/src/**/workflow.ts', 'examples/src/**/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*'], message: 'Workflow code runs in the Temporal sandbox: no Node built-ins.' }] }]
    }
  }
]
