import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database } from '@playstack/server-kit';
import type { IngestionTables } from '../storage/storage-tables.js';
import { dayMs, minuteMs, minuteOf } from '../time-units.js';
import { ingestionTotals } from './ingestion-counters.js';
import type { HealthViewResponse } from './health-schemas.js';

/** Items per minute average over this many whole minutes before the current one. */
const rateWindowMinutes = 15;

const countedTables = {
  occurrences: 'occurrences',
  operationRollups: 'operation_rollups',
  tenantRollups: 'tenant_rollups',
  statementRollups: 'statement_rollups',
  dependencyRollups: 'dependency_rollups',
} as const;

async function storageSizeBytes(database: Database): Promise<number> {
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

async function rowCounts(db: Kysely<IngestionTables>): Promise<Record<keyof typeof countedTables, number>> {
  const entries = await Promise.all(
    Object.entries(countedTables).map(async ([name, table]) => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return [name, Number(row.n)] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<keyof typeof countedTables, number>;
}

/**
 * The retention in force, read afresh. Declared here, not imported: the retention feature's
 * policy fits it, and health stays below retention (which prunes health's counters).
 */
export interface RetentionInForce {
  refresh(): Promise<number>;
}

/** Ingestion, storage, retention and database status, for operators. */
export async function healthView(database: Database, nowMs: number, retention: RetentionInForce): Promise<HealthViewResponse> {
  const checkedAt = new Date(nowMs).toISOString();
  const started = performance.now();
  try {
    await database.ping();
  } catch (error) {
    return {
      checkedAt,
      ingestion: null,
      storage: null,
      retention: null,
      database: { dialect: database.dialect, status: 'unreachable', latencyMs: null, message: error instanceof Error ? error.message : String(error) },
    };
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  const db = database.db as Kysely<IngestionTables>;
  const currentMinute = minuteOf(nowMs);
  const [newest, oldest, recent, lastDay, sizeBytes, rows, days] = await Promise.all([
    db.selectFrom('occurrences').select('received_at').orderBy('id', 'desc').limit(1).executeTakeFirst(),
    db.selectFrom('occurrences').select((eb) => eb.fn.min('started_at').as('oldest')).executeTakeFirst(),
    ingestionTotals(database.db, currentMinute - rateWindowMinutes * minuteMs, currentMinute),
    ingestionTotals(database.db, currentMinute - dayMs, currentMinute + minuteMs),
    storageSizeBytes(database),
    rowCounts(db),
    retention.refresh(),
  ]);
  const oldestMs = oldest?.oldest === null || oldest?.oldest === undefined ? undefined : Number(oldest.oldest);
  return {
    checkedAt,
    ingestion: {
      lastReceivedAt: newest ? new Date(Number(newest.received_at)).toISOString() : null,
      itemsPerMinute: recent.accepted / rateWindowMinutes,
      acceptedLast24h: lastDay.accepted,
      refusedLast24h: lastDay.refused,
    },
    storage: { sizeBytes, rows },
    retention: { days, oldestOccurrenceAt: oldestMs === undefined ? null : new Date(oldestMs).toISOString() },
    database: { dialect: database.dialect, status: 'ok', latencyMs, message: null },
  };
}
