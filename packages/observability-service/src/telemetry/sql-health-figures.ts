import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Database } from '@playstack/server-kit';
import { ingestionTotals } from '../storage/ingestion-counters.js';
import { dayMs, minuteMs, minuteOf } from '../time-units.js';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import type { TelemetryHealth, TelemetryHealthFigures } from './telemetry-store.js';

/** The health view's rate covers this many whole minutes before the current one. */
const rateWindowMinutes = 15;

const countedTables = {
  occurrences: 'occurrences',
  operationRollups: 'operation_rollups',
  tenantRollups: 'tenant_rollups',
  statementRollups: 'statement_rollups',
  dependencyRollups: 'dependency_rollups',
} as const;

async function storageSizeBytes(database: Database<TelemetryDatabase>): Promise<number> {
  if (database.dialect === 'sqlite') {
    const result = await sql<{ bytes: number }>`select page_count * page_size as bytes from pragma_page_count(), pragma_page_size()`.execute(database.db);
    return Number(result.rows[0]?.bytes ?? 0);
  }
  const result = await sql<{ bytes: number | null }>`
    select sum(pg_total_relation_size(c.oid)) as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'
  `.execute(database.db);
  return Number(result.rows[0]?.bytes ?? 0);
}

async function rowCounts(database: Database<TelemetryDatabase>): Promise<TelemetryHealthFigures['rows']> {
  const entries = await Promise.all(
    Object.entries(countedTables).map(async ([name, table]) => {
      const row = await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return [name, Number(row.n)] as const;
    }),
  );
  return Object.fromEntries(entries) as TelemetryHealthFigures['rows'];
}

/** The SQL store's health figures: a ping, the newest and oldest occurrence, ingestion counts, size and row counts. */
export async function sqlHealthFigures(database: Database<TelemetryDatabase>, nowMs: number): Promise<TelemetryHealth> {
  const kind = database.dialect;
  const started = performance.now();
  try {
    await database.ping();
  } catch (error) {
    return { kind, unreachable: error instanceof Error ? error.message : String(error) };
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  const { db } = database;
  const currentMinute = minuteOf(nowMs);
  const [newest, oldest, recent, lastDay, sizeBytes, rows] = await Promise.all([
    db.selectFrom('occurrences').select('received_at').orderBy('id', 'desc').limit(1).executeTakeFirst(),
    db.selectFrom('occurrences').select((eb) => eb.fn.min('started_at').as('oldest')).executeTakeFirst(),
    ingestionTotals(db, currentMinute - rateWindowMinutes * minuteMs, currentMinute),
    ingestionTotals(db, currentMinute - dayMs, currentMinute + minuteMs),
    storageSizeBytes(database),
    rowCounts(database),
  ]);
  return {
    kind,
    latencyMs,
    lastReceivedAtMs: newest ? Number(newest.received_at) : null,
    oldestStartedAtMs: oldest?.oldest === null || oldest?.oldest === undefined ? null : Number(oldest.oldest),
    acceptedLast15Minutes: recent.accepted,
    acceptedLast24h: lastDay.accepted,
    refusedLast24h: lastDay.refused,
    sizeBytes,
    rows,
  };
}
