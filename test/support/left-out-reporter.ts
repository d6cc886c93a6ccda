import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { spawnSync } from 'node:child_process';

/** Whether the ClickHouse suites can start a server of their own (the kit's testing module checks the same). */
function clickHouseServerInstalled(): boolean {
  return spawnSync('sh', ['-c', 'command -v clickhouse-server'], { stdio: 'ignore' }).status === 0;
}

/** What a run without some variable leaves out, and the variable that brings it in. */
const conditionalSuites = [
  { variable: 'TEST_DATABASE_URL', what: 'PostgreSQL suites (each storage suite runs on SQLite only)', example: 'postgres://postgres@127.0.0.1:5432/test' },
  { variable: 'TEST_REDIS_URL', what: 'Redis suites (rank engine, rate limits and revocations run in-process only)', example: 'redis://127.0.0.1:6379' },
  // Without the variable the ClickHouse suites start a server of their own when clickhouse-server is installed.
  { variable: 'TEST_CLICKHOUSE_URL', what: 'ClickHouse suites (no clickhouse-server installed here either)', example: 'http://127.0.0.1:8123', available: clickHouseServerInstalled },
] as const;

/**
 * Ends a run with one short account of what it did not test and why: the suites a missing
 * variable leaves out, and any test marked skip or todo. A person reading "all passed" should
 * know what "all" was.
 */
export default class LeftOutReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const suite of conditionalSuites) {
      if (!process.env[suite.variable] && !('available' in suite && suite.available())) lines.push(`${suite.what} skipped: ${suite.variable} unset (e.g. ${suite.variable}=${suite.example})`);
    }
    // With a name filter (-t) the tests it leaves out are the point, not news.
    if (!this.#vitest?.config.testNamePattern) {
      for (const module of testModules) {
        for (const test of module.children.allTests()) {
          if (test.result().state === 'skipped') lines.push(`skipped: ${module.moduleId.replace(`${this.#vitest?.config.root ?? ''}/`, '')} > ${test.fullName}`);
        }
      }
    }
    const heading = lines.length === 0 ? 'Left out of this run: nothing (PostgreSQL, Redis and ClickHouse suites included).' : 'Left out of this run:';
    process.stdout.write(`\n${[heading, ...lines.map((line) => `  - ${line}`)].join('\n')}\n`);
  }
}
