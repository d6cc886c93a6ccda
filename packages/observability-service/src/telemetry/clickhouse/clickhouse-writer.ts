import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '@playstack/server-kit';
import { GroupCommit } from '../../storage/group-commit.js';
import type { NewLogRecord } from '../../logs/index.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { minuteOf } from '../../time-units.js';
import type { CommitReport } from '../telemetry-store.js';
import { logInsertColumns, logRowsBinary, LogUids } from './clickhouse-log-rows.js';
import { dayOf, occurrenceInsertColumns, occurrenceRowsBinary } from './clickhouse-occurrence-rows.js';

export { dayOf };

export interface ClickHouseWriterOptions {
  client: ClickHouseClient;
  database: string;
  clock: Clock;
  /** Requests waiting together are inserted together, up to this many rows per insert. */
  maxRowsPerInsert: number;
  /** False: writes are not counted in `ingestion_minutes` (the copy command's are not ingestion). Default true. */
  countsIngestion?: boolean;
  onCommit: (commit: CommitReport) => void;
}

/**
 * Inserts running at once. An insert of a block is mostly one thread on the server (with its
 * views pushed in parallel, below); two let a server with two or more cores work on both while
 * this process builds the next body (bench/ingest.ts, stores part: docs/performance.md).
 */
export const clickHouseConcurrentInserts = 2;

/**
 * Settings of the inserts of rows: the views over the inserted block (11 over `occurrences`, each
 * writing its own part) are pushed by several threads rather than one after another.
 */
export const clickHouseInsertSettings = { parallel_view_processing: 1 } as const;

interface PendingWrite {
  rows: readonly NewOccurrence[];
  logs: readonly NewLogRecord[];
  refused: number;
}

/**
 * Inserts occurrences and log records into ClickHouse with group commit (storage/group-commit.ts): requests that
 * arrive while an insert is running go in the next one (ClickHouse wants few large inserts).
 * `write` resolves only after ClickHouse has answered the insert holding its rows, so an
 * acknowledged request is stored. The rollups are ClickHouse's materialized views over the
 * inserted block: no read-modify-write, so any number of writers can insert the same minute.
 */
export class ClickHouseWriter {
  readonly #options: ClickHouseWriterOptions;
  readonly #commits: GroupCommit<PendingWrite>;
  readonly #logUids = new LogUids();

  constructor(options: ClickHouseWriterOptions) {
    this.#options = options;
    this.#commits = new GroupCommit<PendingWrite>({
      maxGroupSize: options.maxRowsPerInsert,
      maxConcurrentCommits: clickHouseConcurrentInserts,
      size: (pending) => pending.rows.length + pending.logs.length,
      commit: (group) =>
        this.#insert(
          group.flatMap((pending) => pending.rows),
          group.flatMap((pending) => pending.logs),
          group.reduce((sum, pending) => sum + pending.refused, 0),
          group.length,
        ),
    });
  }

  /** Resolves once ClickHouse has accepted the inserts holding the rows and records. */
  write(rows: readonly NewOccurrence[], refused: number, logs: readonly NewLogRecord[] = []): Promise<void> {
    if (rows.length === 0 && logs.length === 0 && refused === 0) return Promise.resolve();
    return this.#commits.submit({ rows, logs, refused });
  }

  idle(): Promise<void> {
    return this.#commits.idle();
  }

  async #insert(rows: readonly NewOccurrence[], logs: readonly NewLogRecord[], refused: number, envelopes: number): Promise<void> {
    const { clock } = this.#options;
    const started = performance.now();
    const now = clock.now();
    await this.#recordArrivals(rows, now);
    // The inserts are independent: all at once, acknowledged when every one has been accepted.
    const inserts: Array<Promise<unknown>> = [];
    if (rows.length > 0) inserts.push(this.#insertRowBinary('occurrences', occurrenceInsertColumns, occurrenceRowsBinary(rows, now)));
    if (logs.length > 0) inserts.push(this.#insertRowBinary('logs', logInsertColumns, logRowsBinary(logs, now, this.#logUids)));
    if (this.#options.countsIngestion !== false) {
      const minute = minuteOf(now);
      inserts.push(
        this.#options.client.insert({
          table: `${this.#options.database}.ingestion_minutes`,
          values: [{ day: dayOf(minute), minute, accepted: rows.length + logs.length, refused }],
          format: 'JSONEachRow',
        }),
      );
    }
    await settleAll(inserts);
    this.#options.onCommit({ envelopes, rows: rows.length, logs: logs.length, durationMs: performance.now() - started });
  }

  /**
   * The minutes of rows that bring a receipt of their own (the copy command's, received by the
   * store they come from) get `now` as their latest receipt in `occurrence_minutes`, before the
   * rows are inserted: the view over the insert records their own receipts, which may be older
   * than a dependency resolution of those minutes already made here, and the resolver and the
   * reads must see that those minutes changed (clickhouse-dependency-resolver.ts). Rows received
   * now need nothing: the view records `now` for them.
   */
  async #recordArrivals(rows: readonly NewOccurrence[], now: number): Promise<void> {
    const minutes = new Set<number>();
    for (const row of rows) if (row.received_at !== undefined) minutes.add(minuteOf(row.started_at));
    if (minutes.size === 0) return;
    await this.#options.client.insert({
      table: `${this.#options.database}.occurrence_minutes`,
      values: [...minutes].map((minute) => ({ day: dayOf(minute), minute, last_received: now })),
      format: 'JSONEachRow',
    });
  }

  async #insertRowBinary(table: string, columns: readonly string[], rows: Buffer): Promise<void> {
    const { client, database } = this.#options;
    const body = Readable.from([rows], { objectMode: false });
    const result = await client.exec({ query: `INSERT INTO ${database}.${table} (${columns.join(', ')}) FORMAT RowBinary`, values: body, clickhouse_settings: clickHouseInsertSettings });
    // Read to its end: the answer comes once the insert is done (wait_end_of_query), and the socket goes back to the pool.
    await finished(result.stream.resume());
  }
}

/** Waits for every promise to settle, then rejects with the first failure, if any (none left running behind a rejection). */
async function settleAll(promises: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}
