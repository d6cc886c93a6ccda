import type { Database } from '@playstack/server-kit';
import { pruneErrorGroups } from '../errors/error-group-retention.js';
import { pruneIngestionCounters } from '../storage/ingestion-counters.js';
import type { LogStore } from '../logs/index.js';
import { pruneTiers } from '../query/tier-compactor.js';
import { errorGroupTables } from '../errors/error-group-tables.js';
import { telemetryDatabase } from '../storage/telemetry-database.js';
import type { SqlTelemetryDatabase } from './sql-telemetry-database.js';
import type { PruneCounts } from './telemetry-store.js';

const rollupTables = ['operation_rollups', 'tenant_rollups', 'statement_rollups', 'dependency_rollups'] as const;

/** Lets queued work (ingestion's transactions) run between two deletes. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Deletes raw occurrences, log records, rollup rows, tiers, error group counts and ingestion
 * counters older than `cutoff`, in small batches: each delete is its own short statement and the
 * event loop turns between them, so ingestion keeps committing while a large backlog is pruned.
 */
export async function pruneSqlTelemetry(database: Database<SqlTelemetryDatabase>, logs: LogStore, cutoff: number, batchRows: number, stopped: () => boolean): Promise<PruneCounts> {
  const { db } = database;
  const result: PruneCounts = { occurrences: 0, rollupRows: 0, logRecords: 0 };
  while (!stopped()) {
    const deleted = await db
      .deleteFrom('occurrences')
      .where('id', 'in', (eb) => eb.selectFrom('occurrences').select('id').where('started_at', '<', cutoff).orderBy('started_at').limit(batchRows))
      .executeTakeFirst();
    const count = Number(deleted.numDeletedRows);
    result.occurrences += count;
    if (count < batchRows) break;
    await yieldToEventLoop();
  }
  for (const table of rollupTables) {
    // One minute per delete: a minute's rows are bounded by the key cardinality, not by traffic.
    while (!stopped()) {
      const oldest = await db.selectFrom(table).select((eb) => eb.fn.min('minute').as('minute')).where('minute', '<', cutoff).executeTakeFirst();
      if (oldest?.minute === null || oldest?.minute === undefined) break;
      const deleted = await db.deleteFrom(table).where('minute', '=', Number(oldest.minute)).executeTakeFirst();
      result.rollupRows += Number(deleted.numDeletedRows);
      await yieldToEventLoop();
    }
  }
  if (!stopped()) result.logRecords = await logs.prune(cutoff, batchRows, stopped);
  const telemetry = telemetryDatabase(database);
  if (!stopped()) await pruneTiers(telemetry, cutoff);
  if (!stopped()) result.rollupRows += await pruneErrorGroups({ db: errorGroupTables(db), dialect: database.dialect }, cutoff);
  if (!stopped()) await pruneIngestionCounters(telemetry.db, cutoff);
  return result;
}
