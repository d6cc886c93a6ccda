/**
 * The import graph's rules, checked by test/import-graph.test.ts in `npm test` (and by hand with
 * `npx depcruise packages --config .dependency-cruiser.cjs`).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Modules must not import each other, directly or around a loop: such a pair is one module in two files, and its load order is luck.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Folders must not import each other, directly or around a loop: each folder is a layer or a feature, and a loop makes two of them one.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-other-feature-store',
      severity: 'error',
      comment:
        "A feature calls another feature's exported functions (its service), never its store: the feature that owns a table is the only one that reads or writes it.",
      from: { path: '^packages/([^/]+)/src/([^/]+)/' },
      to: { path: '^packages/$1/src/[^/]+/[^/]+-store\\.ts$', pathNot: '^packages/$1/src/$2/' },
    },
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.check.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['source', 'import', 'node', 'default'] },
  },
};
