import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the "source" export condition),
// so tests never run against a stale build.
// Only "source" is added: Vitest hands the conditions to Node, and an "import" condition there
// would make CommonJS packages (pg) load ESM builds of their dependencies through require().
const conditions = ['source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, where
    // most suites wait on child processes, sockets and timers rather than compute. Two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // After the usual summary: what this run left out (a missing TEST_DATABASE_URL, say) and why.
    reporters: ['default', './test/support/left-out-reporter.ts'],
  },
});
