import type { Kysely } from 'kysely';
import type { ServiceMigration } from '@playstack/server-kit';

/**
 * The start-time index carries the columns the occurrence search checks on every row of its
 * window (duration, status, HTTP status code, error type) after `(started_at, id)`, the order the
 * lists and the window are read in. A search over the newest 50,000 occurrences without a service
 * (the duration filter, the status class, the error type, the duration chart) is then read from
 * the index alone, instead of one table row looked up per index entry: at 10M occurrences the
 * duration list went from 22-34 ms to 6-7 ms, the chart from 15-20 ms to 8 ms
 * (docs/observability-read-api.md, Occurrence search). Its entries are about 34 bytes instead
 * of 15, which cost span ingestion on SQLite 8-9 % of its throughput (docs/performance.md, The
 * covering start-time index).
 *
 * Rebuilding it reads the whole table once: 6-14 s per 10M occurrences on SQLite (the service's
 * start waits for it); on PostgreSQL the table is locked against reads and writes meanwhile
 * (the drop's lock is held until the migrations' transaction commits: docs/operations.md, Upgrades).
 */
export const occurrencesTimeCoveringIndex: ServiceMigration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('occurrences_started_at').execute();
    await db.schema
      .createIndex('occurrences_started_at')
      .on('occurrences')
      .columns(['started_at', 'id', 'duration_ms', 'status', 'http_status_code', 'error_type'])
      .execute();
  },
};
