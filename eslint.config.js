// Lint: neostandard (the style the code is written in) plus the type-aware promise rules of
// typescript-eslint, because an unawaited engine call or a promise handed to a callback that
// ignores it fails silently at run time, never at compile time.
import boundaries from 'eslint-plugin-boundaries'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import { importX } from 'eslint-plugin-import-x'
import neostandard from 'neostandard'

// Layering (each folder's README.md says what it holds and may import): every file of ours belongs
// to one element below, and an import no policy allows fails the lint. Import cycles, type-only
// imports included, and concepts importing each other: .dependency-cruiser.mjs (also `npm run lint`).

// Workspace packages resolve to their sources (the `flowport-source` condition): an import of
// `@flowport/worker/…` is an import of worker/src/…, checked like any other.
const conditionNames = ['flowport-source', 'types', 'import', 'default']

const API = ['routes', 'plugin', 'concept', 'lib', 'schemas']
// The API uses the worker package (its contract and settings) and core, never the client.
const PACKAGES = ['core', 'worker']
const allow = (...types) => ({ to: { element: { types } } })
const APP = { to: { file: { categories: 'app' } } }
const CONTRACT = { file: { categories: 'contract' } }
// A cross-cutting concern's schemas sit in its folder (plugins/README.md) and are the wire all the same.
const WIRE = { category: 'wire', pattern: 'plugins/*/*/schema.ts' }
const TO_WIRE = { to: { file: { categories: 'wire' } } }

const layering = {
  files: ['**/*.{ts,js,mjs}'],
  ignores: ['eslint.config.js', '.dependency-cruiser.mjs'],
  plugins: { boundaries, 'import-x': importX },
  settings: {
    'import/resolver': { typescript: { conditionNames } },
    'import-x/resolver-next': [createTypeScriptImportResolver({ conditionNames })],
    'import-x/extensions': ['.ts', '.js', '.mjs'],
    'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    // First match wins: a package's test/ folder is test code, not the package.
    'boundaries/elements': [
      { type: 'routes', pattern: 'routes', partialMatch: false },
      { type: 'plugin', pattern: ['plugins/external', 'plugins/http'], partialMatch: false },
      { type: 'concept', pattern: 'plugins/app/*', capture: ['concept'], partialMatch: false },
      { type: 'lib', pattern: 'lib', partialMatch: false },
      { type: 'schemas', pattern: 'schemas', partialMatch: false },
      { type: 'openapi', pattern: 'openapi', partialMatch: false },
      { type: 'ui', pattern: 'ui', partialMatch: false },
      { type: 'cli', pattern: ['cli', 'bin'], partialMatch: false },
      { type: 'bench', pattern: 'bench', partialMatch: false },
      { type: 'scripts', pattern: ['scripts', 'examples/scripts'], partialMatch: false },
      { type: 'harness', pattern: 'test/helpers', partialMatch: false },
      { type: 'test', pattern: ['test', '*/test'], partialMatch: false },
      { type: 'core', pattern: 'core', partialMatch: false },
      { type: 'worker', pattern: 'worker', partialMatch: false },
      { type: 'client', pattern: 'client', partialMatch: false },
      { type: 'examples', pattern: 'examples', partialMatch: false }
    ],
    // app.ts and server.ts are files at the root, not a folder: a file category stands for them.
    'boundaries/files': [
      { category: 'app', pattern: '{app,server}.ts' },
      // Core's dependency-free contract (core/README.md): what the browser and workflow code take too.
      { category: 'contract', pattern: 'core/src/{api,bounded,contract,duration,eval,fatal-error,local-markers,run,steps}.ts' },
      WIRE
    ]
  },
  rules: {
    'boundaries/dependencies': ['error', {
      default: 'disallow',
      // Packages are checked too (the contract takes none but TypeBox), and so are imports within
      // one element (the contract is files of core).
      checkAllOrigins: true,
      checkInternals: true,
      policies: [
        // npm packages and Node's built-ins (origin "core"; our core/ package is the element "core").
        { allow: { to: { module: { origin: ['external', 'core'] } } } },
        // The cross-cutting concerns sit below the concepts and the routes, which use their helpers.
        { from: { element: { types: ['concept', 'routes'] } }, allow: allow('plugin') },
        // A route declares the access it needs with the access concept's route face.
        { from: { element: { type: 'routes' } }, allow: { to: { element: { type: 'concept', captured: { concept: 'access' }, fileInternalPath: 'route-access.ts' } } } },
        { from: { element: { type: 'schemas' } }, allow: allow('schemas', 'core') },
        { from: { element: { type: 'lib' } }, allow: allow('lib', 'schemas', ...PACKAGES) },
        { from: { element: { type: 'plugin' } }, allow: allow('plugin', 'lib', 'schemas', ...PACKAGES) },
        { from: { element: { type: 'concept' } }, allow: allow('lib', 'schemas', ...PACKAGES) },
        // A concept's own files import each other freely; another concept only through its face, its
        // index.ts (the plugin that decorates the service, and what the concept lets others use).
        { from: { element: { type: 'concept' } }, allow: { to: { element: { type: 'concept', captured: { concept: '{{ from.element.captured.concept }}' } } } } },
        { from: { element: { type: 'concept' } }, allow: { to: { element: { type: 'concept', fileInternalPath: 'index.ts' } } } },
        { from: { element: { type: 'routes' } }, allow: allow('routes', 'lib', 'schemas', ...PACKAGES) },
        // A route calls `fastify.<concept>`: it needs the service's type (from the concept's face), never its code.
        { from: { element: { type: 'routes' } }, allow: { to: { element: { type: 'concept', fileInternalPath: 'index.ts' } }, dependency: { kind: 'type' } } },
        { from: { file: { categories: 'app' } }, allow: allow(...API, ...PACKAGES) },
        { from: { file: { categories: 'app' } }, allow: APP },
        { from: { element: { types: ['openapi', 'cli'] } }, allow: allow('openapi', 'cli', ...API, ...PACKAGES, 'client') },
        { from: { element: { types: ['bench', 'scripts', 'test'] } }, allow: { to: { element: { type: '*' } } } },
        // What bench/, scripts/ and the tests share lives below all three: in test/helpers/ (or cli/).
        { from: { element: { type: 'harness' } }, allow: allow('harness', 'cli', 'openapi', ...API, ...PACKAGES, 'client') },
        { from: { element: { types: ['openapi', 'cli', 'bench', 'scripts', 'test', 'harness'] } }, allow: APP },
        { from: { element: { type: 'scripts' } }, disallow: allow('bench') },
        { from: { element: { type: 'ui' } }, allow: allow('ui') },
        { from: { element: { type: 'core' } }, allow: allow('core') },
        { from: { element: { type: 'worker' } }, allow: allow('worker', 'core') },
        { from: { element: { type: 'client' } }, allow: allow('client', 'core') },
        { from: { element: { type: 'examples' } }, allow: allow('examples', 'worker', 'core') },
        // The contract imports only itself and TypeBox (pure JavaScript): no Node built-in, no other
        // package, none of core's I/O. The last policy that matches decides, hence this order.
        { from: CONTRACT, disallow: { to: { element: { type: 'core' } } } },
        { from: CONTRACT, disallow: { to: { module: { origin: ['external', 'core'] } } } },
        { from: CONTRACT, allow: { to: { file: { categories: 'contract' } } } },
        { from: CONTRACT, allow: { to: { module: { source: '@sinclair/typebox' } } } },
        { from: { element: { type: 'schemas' } }, allow: TO_WIRE },
        { from: { file: { categories: 'wire' } }, disallow: allow('lib', 'plugin') },
        { from: { file: { categories: 'wire' } }, allow: TO_WIRE }
      ]
    }],
    'boundaries/no-unknown-files': 'error'
    // Import cycles are .dependency-cruiser.mjs's, which `npm run lint` runs first.
  }
}

export default [
  // test/fixtures/conformance: scripts compiled against clients generated at test time (test/client-conformance-*.test.ts).
  { ignores: ['**/dist/**', '**/node_modules/**', '.flowport/**', '.tap/**', 'coverage/**', 'openapi/openapi.json', 'client/src/generated/**', 'test/fixtures/conformance/**'] },
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
  },
  layering
]
