import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase, startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { generatedRow } from './support/generated-occurrences.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');

/**
 * One call on each of four edges, so every count ties: the order is then source, target and kind
 * in code-unit order ("Zeta" before "alpha"), the same on every store. A locale's collation puts
 * "alpha" first, and without the kind two edges from alpha to inventory come in storage order.
 */
const calls = [
  { service: 'alpha', extra: { peer: { address: 'inventory' } } },
  { service: 'alpha', extra: { db: { system: 'postgresql', statement: 'SELECT 1' } } },
  { service: 'alpha', extra: { peer: { service: 'inventory' } } },
  { service: 'Zeta', extra: { peer: { service: 'inventory' } } },
];

const rows = calls.map(({ service, extra }, index) =>
  generatedRow(
    { service, environment: 'production' },
    {
      traceId: `${index + 1}`.padStart(32, 'a'),
      spanId: `${index + 1}`.padStart(16, 'b'),
      operation: 'call',
      kind: 'client',
      startedAt: new Date(now - (index + 1) * 60_000).toISOString(),
      durationMs: 10,
      status: 'ok',
      ...extra,
    },
  ),
);

let clickHouse: Promise<TestClickHouse> | undefined;
afterAll(async () => {
  await (await clickHouse)?.dispose();
});

for (const store of ['sql', ...(clickHouseAvailable() ? ['clickhouse'] : [])]) {
  describeEachDatabase(`dependency edges of equal counts, telemetry in ${store}`, (database) => {
    let app: App;
    let session: BrowserSession;

    beforeAll(async () => {
      const clock = new ManualClock(now);
      const env = store === 'clickhouse' ? await clickHouseEnv() : {};
      app = await buildTestApp(database(), env, { clock });
      session = await setUpFirstAdmin(app);
      await app.telemetry.write(rows);
    }, 60_000);
    afterAll(async () => {
      await app?.close();
    });

    it('orders them by source, target and kind in code-unit order', async () => {
      const response = await asBrowser(app, session, { method: 'GET', url: '/api/v1/dependencies' });
      expect(response.statusCode).toBe(200);
      expect(response.json().edges.map((edge: { source: string; target: string; targetKind: string; count: number }) => [edge.source, edge.target, edge.targetKind, edge.count])).toEqual([
        ['Zeta', 'inventory', 'service', 1],
        ['alpha', 'inventory', 'address', 1],
        ['alpha', 'inventory', 'service', 1],
        ['alpha', 'postgresql', 'database', 1],
      ]);
    });
  });
}

async function clickHouseEnv(): Promise<Record<string, string>> {
  const server = await (clickHouse ??= startTestClickHouse());
  return { CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: server.database() };
}
