import { defineConfig } from 'vitest/config';

// Runs only the fixture, with the repository's reporters (test/left-out-reporter.test.ts).
export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['example.fixture.ts'],
    reporters: ['default', '../left-out-reporter.ts'],
  },
});
