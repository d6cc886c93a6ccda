import { afterAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { firstIdAt } from '../src/logs/log-ids.js';
import { databaseMigratedUpTo, insertRow } from './support/legacy-database.js';
import { buildTestApp } from './support/test-app.js';

const now = Date.UTC(2026, 11, 3, 12);
const hourMs = 3_600_000;
const oldTrace = 'a'.repeat(31) + '1';
const newTrace = 'b'.repeat(31) + '2';
const records = [
  { id: firstIdAt(now - 3 * hourMs), time_ms: now - 3 * hourMs, body: 'old checkout zebra failed', trace_id: oldTrace },
  { id: firstIdAt(now - hourMs), time_ms: now - hourMs, body: 'new checkout zebra passed', trace_id: newTrace },
  { id: firstIdAt(now - hourMs) + 1, time_ms: now - hourMs, body: 'zebras are a near miss', trace_id: null },
];

/** The database migrated up to `lastMigration`, holding `records` and (SQLite) their text index entries of that release: bodies and trace ids. */
async function legacyWithRecords(database: TestDatabase, lastMigration: string): Promise<void> {
  const legacy = await databaseMigratedUpTo(database, lastMigration);
  for (const record of records) {
    await insertRow(legacy, 'logs', {
      ...record, time_ns: 0, observed_ms: record.time_ms, severity_number: 9, body_json: 0, service: 'svc', environment: 'production', flags: 0, received_at: record.time_ms,
    });
    if (legacy.dialect === 'sqlite') await sql`insert into logs_fts (rowid, body, trace) values (${record.id}, ${record.body}, ${record.trace_id})`.execute(legacy.db);
  }
  await legacy.close();
}

describeEachDatabase('upgrading a database whose logs text index predates columnsize=0', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('rebuilds the index from the stored records: search, trace lookup and pruning keep working', async () => {
    await legacyWithRecords(database(), '20261127141500-error-group-status-changes');

    app = await buildTestApp(database(), {}, { clock: new ManualClock(now) });
    const store = app.logStore;
    const range = { fromMs: now - 4 * hourMs, toMs: now };
    const found = async (terms: string[]) => (await store.search({ range, filters: {}, terms, limit: 10 })).map((row) => row.body);
    expect(await found(['zebra'])).toEqual(['new checkout zebra passed', 'old checkout zebra failed']);
    expect(await found(['checkout', 'failed'])).toEqual(['old checkout zebra failed']);
    expect((await store.traceLogs(oldTrace, 10)).map((row) => row.body)).toEqual(['old checkout zebra failed']);

    if (app.database.dialect === 'sqlite') {
      const definition = await sql<{ sql: string }>`select sql from sqlite_master where name = 'logs_fts'`.execute(app.database.db);
      expect(definition.rows[0]!.sql).toContain('columnsize=0');
      const docsize = await sql<{ name: string }>`select name from sqlite_master where name = 'logs_fts_docsize'`.execute(app.database.db);
      expect(docsize.rows).toEqual([]);
      const config = await sql<{ k: string; v: number }>`select k, v from logs_fts_config where k in ('automerge', 'crisismerge') order by k`.execute(app.database.db);
      expect(config.rows).toEqual([{ k: 'automerge', v: 16 }, { k: 'crisismerge', v: 64 }]);
    }

    // Pruning the oldest record removes its index entries (the 'delete' command) and keeps the others'.
    expect(await store.prune(now - 2 * hourMs, 100, () => false)).toBe(1);
    expect(await found(['zebra'])).toEqual(['new checkout zebra passed']);
    expect(await store.traceLogs(oldTrace, 10)).toEqual([]);
    expect((await store.traceLogs(newTrace, 10)).map((row) => row.body)).toEqual(['new checkout zebra passed']);
    if (app.database.dialect === 'sqlite') {
      const indexed = await sql<{ rowid: number }>`select rowid from logs_fts where logs_fts match 'zebra OR failed OR near' order by rowid`.execute(app.database.db);
      expect(indexed.rows.map((row) => Number(row.rowid))).toEqual([records[1]!.id, records[2]!.id]);
    }
  });
});

describeEachDatabase('upgrading a database whose logs text index holds the trace ids', (database) => {
  let app: App | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('moves the trace ids to the trace directory: trace look-ups, word searches and pruning answer as before', async () => {
    await legacyWithRecords(database(), '20261204200000-operation-keys');

    app = await buildTestApp(database(), {}, { clock: new ManualClock(now) });
    const store = app.logStore;
    const range = { fromMs: now - 4 * hourMs, toMs: now };
    const found = async (terms: string[]) => (await store.search({ range, filters: {}, terms, limit: 10 })).map((row) => row.body);
    expect(await found(['zebra'])).toEqual(['new checkout zebra passed', 'old checkout zebra failed']);
    expect((await store.traceLogs(oldTrace, 10)).map((row) => row.body)).toEqual(['old checkout zebra failed']);
    expect((await store.search({ range, filters: {}, traceId: newTrace, limit: 10 })).map((row) => row.body)).toEqual(['new checkout zebra passed']);

    if (app.database.dialect === 'sqlite') {
      const definition = await sql<{ sql: string }>`select sql from sqlite_master where name = 'logs_fts'`.execute(app.database.db);
      expect(definition.rows[0]!.sql).not.toContain('trace');
      expect(definition.rows[0]!.sql).toContain('columnsize=0');
      const blocks = await sql<{ records: number }>`select records from log_trace_blocks`.execute(app.database.db);
      expect(blocks.rows.map((row) => Number(row.records))).toEqual([2]);
    }

    // Records stored after the upgrade are found beside the upgraded ones.
    await app.telemetry.write([], 0, [
      {
        time_ms: now - 30 * 60_000, time_ns: 0, observed_ms: now, severity_number: 9, severity_text: null, body: 'after the upgrade', body_json: 0, event_name: null,
        service: 'svc', environment: 'production', service_version: null, instance: null, scope_name: null, scope_version: null, trace_id: newTrace, span_id: null,
        flags: 0, tenant_id: null, attributes: null, resource_attributes: null,
      },
    ]);
    expect((await store.traceLogs(newTrace, 10)).map((row) => row.body)).toEqual(['new checkout zebra passed', 'after the upgrade']);

    expect(await store.prune(now - 2 * hourMs, 100, () => false)).toBe(1);
    expect(await store.traceLogs(oldTrace, 10)).toEqual([]);
    expect(await found(['zebra'])).toEqual(['new checkout zebra passed']);
  });
});
