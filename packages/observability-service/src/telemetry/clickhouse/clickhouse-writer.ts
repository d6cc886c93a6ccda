import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '@playstack/server-kit';
import { GroupCommit } from '../../storage/group-commit.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { minuteOf } from '../../time-units.js';
import type { CommitReport } from '../telemetry-store.js';
import { dayOf, occurrenceInsertColumns, occurrenceRowsBinary } from './clickhouse-occurrence-rows.js';

export { dayOf };

export interface ClickHouseWriterOptions {
  client: ClickHouseClient;
  database: string;
  clock: Clock;
  /** Requests waiting together are inserted together, up to this many rows per insert. */
  maxRowsPerInsert: number;
  onCommit: (commit: CommitReport) => void;
}

interface PendingWrite {
  rows: readonly NewOccurrence[];
  refused: number;
}

/**
 * Inserts occurrences into ClickHouse with group commit (storage/group-commit.ts): requests that
 * arrive while an insert is running go in the next one (ClickHouse wants few large inserts).
 * `write` resolves only after ClickHouse has answered the insert holding its rows, so an
 * acknowledged request is stored. The rollups are ClickHouse's materialized views over the
 * inserted block: no read-modify-write, so any number of writers can insert the same minute.
 */
export class ClickHouseWriter {
  readonly #options: ClickHouseWriterOptions;
  readonly #commits: GroupCommit<PendingWrite>;

  constructor(options: ClickHouseWriterOptions) {
    this.#options = options;
    this.#commits = new GroupCommit<PendingWrite>({
      maxGroupSize: options.maxRowsPerInsert,
      size: (pending) => pending.rows.length,
      commit: (group) =>
        this.#insert(
          group.flatMap((pending) => pending.rows),
          group.reduce((sum, pending) => sum + pending.refused, 0),
          group.length,
        ),
    });
  }

  write(rows: readonly NewOccurrence[], refused: number): Promise<void> {
    if (rows.length === 0 && refused === 0) return Promise.resolve();
    return this.#commits.submit({ rows, refused });
  }

  idle(): Promise<void> {
    return this.#commits.idle();
  }

  async #insert(rows: readonly NewOccurrence[], refused: number, envelopes: number): Promise<void> {
    const { client, database, clock } = this.#options;
    const started = performance.now();
    const now = clock.now();
    if (rows.length > 0) {
      const body = Readable.from([occurrenceRowsBinary(rows, now)], { objectMode: false });
      const result = await client.exec({ query: `INSERT INTO ${database}.occurrences (${occurrenceInsertColumns.join(', ')}) FORMAT RowBinary`, values: body });
      // Read to its end: the answer comes once the insert is done (wait_end_of_query), and the socket goes back to the pool.
      await finished(result.stream.resume());
    }
    const minute = minuteOf(now);
    await client.insert({ table: `${database}.ingestion_minutes`, values: [{ day: dayOf(minute), minute, accepted: rows.length, refused }], format: 'JSONEachRow' });
    this.#options.onCommit({ envelopes, rows: rows.length, logs: 0, durationMs: performance.now() - started });
  }
}
