// Import cycles, checked by `npm run lint` before ESLint (eslint.config.js holds the directions).
// The one cycle check: it sees every static import and re-export, types included (import-x/no-cycle,
// which it replaces, skipped type-only imports, so two concepts importing each other's types passed,
// and took a dynamic import(), the way to break a cycle on purpose, for an edge). test/lint-layering.test.ts shows each rule refusing its case.
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Files that import each other, directly or around a circle, even through a type-only import.',
      severity: 'error',
      from: {},
      to: { circular: true }
    },
    {
      // A folder's imports are those of every file under it. A concept reaches another only at its
      // face, at the folder's top (eslint.config.js), which is what lets the folder graph stand for
      // the concept graph: an import into another concept's subfolder is refused there.
      name: 'no-concept-cycle',
      comment: 'Concepts (the folders under plugins/app/) that import each other, in any files and by any kind of import, even when no file cycle joins them.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^plugins/app/[^/]+$' },
      to: { path: '^plugins/app/[^/]+$', circular: true }
    }
  ],
  options: {
    exclude: {
      path: '(^|/)(node_modules|dist|coverage|\\.git|\\.flowport|\\.tap)/|^test/fixtures/conformance/',
      // A dynamic import() is how code breaks a cycle on purpose: no edge.
      dynamic: true
    },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // `@flowport/<package>/<entry>` is its source file, as `--conditions=flowport-source` has it at run time.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['flowport-source', 'import', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.d.ts']
    },
    skipAnalysisNotInRules: true
  }
}
