import { afterAll, beforeAll } from 'vitest';
import type { Clock } from '@playstack/server-kit';
import { startTestClickHouse, type TestClickHouse } from '@playstack/server-kit/testing';
import { ClickHouseTelemetry } from '../../src/telemetry/clickhouse/clickhouse-telemetry.js';

/**
 * A ClickHouse store for the suite it is called in: a database of its own on the suite's
 * ClickHouse (TEST_CLICKHOUSE_URL or a private server), migrated before the tests, dropped and
 * closed after them. Returns a getter of the store and the
 * server's URL (set once `beforeAll` ran).
 */
export function clickHouseStoreForSuite(clock: Clock): () => { store: ClickHouseTelemetry; url: string } {
  let clickHouse: TestClickHouse | undefined;
  let store: ClickHouseTelemetry | undefined;
  beforeAll(async () => {
    clickHouse = await startTestClickHouse();
    store = new ClickHouseTelemetry({ url: clickHouse.url, database: clickHouse.database(), clock, maxRowsPerInsert: 10_000 });
    await store.migrate();
  }, 120_000);
  afterAll(async () => {
    await store?.dropDatabase().catch(() => undefined);
    await store?.close();
    await clickHouse?.dispose();
  });
  return () => ({ store: store!, url: clickHouse!.url });
}
