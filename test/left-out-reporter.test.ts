import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

async function runFixture(env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/support/left-out/vitest.config.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
  });
  return stdout;
}

it('a run ends by saying what it left out and why: suites whose variable is unset, tests marked skip or todo', async () => {
  const output = await runFixture({ TEST_CLICKHOUSE_URL: 'http://x' });
  const account = output.slice(output.indexOf('Left out of this run:'));
  expect(account.trim().split('\n')).toEqual([
    'Left out of this run:',
    '  - PostgreSQL suites (each storage suite runs on SQLite only) skipped: TEST_DATABASE_URL unset (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
    '  - Redis suites (rank engine, rate limits and revocations run in-process only) skipped: TEST_REDIS_URL unset (e.g. TEST_REDIS_URL=redis://127.0.0.1:6379)',
    '  - skipped: example.fixture.ts > is marked skip',
    '  - skipped: example.fixture.ts > is still to write',
  ]);
  // Once, at the very end.
  expect(output.match(/Left out of this run/g)).toHaveLength(1);
}, 60_000);

it('with every variable set, only the tests marked skip or todo', async () => {
  const output = await runFixture({ TEST_DATABASE_URL: 'postgres://x', TEST_REDIS_URL: 'redis://x', TEST_CLICKHOUSE_URL: 'http://x' });
  expect(output.slice(output.indexOf('Left out of this run:')).trim().split('\n')).toEqual([
    'Left out of this run:',
    '  - skipped: example.fixture.ts > is marked skip',
    '  - skipped: example.fixture.ts > is still to write',
  ]);
}, 60_000);

it('says the ClickHouse suites were left out only when there is neither TEST_CLICKHOUSE_URL nor a clickhouse-server to start', async () => {
  const clickHouseLine = '  - ClickHouse suites (no clickhouse-server installed here either) skipped: TEST_CLICKHOUSE_URL unset (e.g. TEST_CLICKHOUSE_URL=http://127.0.0.1:8123)';
  const set = { TEST_DATABASE_URL: 'postgres://x', TEST_REDIS_URL: 'redis://x' };
  // /bin has a shell and no clickhouse-server (Debian installs it in /usr/sbin).
  expect(await runFixture({ ...set, PATH: '/bin' })).toContain(clickHouseLine);
  expect(await runFixture({ ...set, TEST_CLICKHOUSE_URL: 'http://x', PATH: '/bin' })).not.toContain(clickHouseLine);
}, 60_000);
