import { randomBytes } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '@playstack/server-kit';
import { errorGroupOf } from '../../errors/error-group-merge.js';
import { GroupCommit } from '../../storage/group-commit.js';
import { bucketIndexOf } from '../../storage/latency-histogram.js';
import { spanRoleOf } from '../../storage/span-role.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { minuteOf } from '../../time-units.js';
import type { CommitReport } from '../telemetry-store.js';

/** The UTC date (`YYYY-MM-DD`) of an epoch-ms timestamp: the day partition its rows go to. */
export function dayOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/**
 * A new occurrence id: its start (ms, base 36) and 8 random bytes, so ids from several writers
 * never collide and an id names the day partition it lives in.
 */
export function occurrenceIdOf(startedAt: number): string {
  return `${Math.floor(startedAt).toString(36)}-${randomBytes(8).toString('hex')}`;
}

/** A row of `occurrences` as inserted (JSONEachRow). */
export function clickHouseOccurrenceRow(row: NewOccurrence, receivedAt: number): Record<string, unknown> {
  const { normalized_statement, ...columns } = row;
  return {
    ...columns,
    day: dayOf(row.started_at),
    id: occurrenceIdOf(row.started_at),
    span_role: spanRoleOf(row.kind, row.parent_span_id),
    latency_bucket: bucketIndexOf(row.duration_ms),
    is_error: row.status === 'error' ? 1 : 0,
    has_tenant: row.tenant_id === null ? 0 : 1,
    has_statement: row.db_system !== null && row.db_statement_hash !== null && normalized_statement !== null ? 1 : 0,
    normalized_statement,
    error_group_id: errorGroupOf(row)?.groupId ?? null,
    received_at: receivedAt,
  };
}

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
      await client.insert({ table: `${database}.occurrences`, values: rows.map((row) => clickHouseOccurrenceRow(row, now)), format: 'JSONEachRow' });
    }
    const minute = minuteOf(now);
    await client.insert({ table: `${database}.ingestion_minutes`, values: [{ day: dayOf(minute), minute, accepted: rows.length, refused }], format: 'JSONEachRow' });
    this.#options.onCommit({ envelopes, rows: rows.length, logs: 0, durationMs: performance.now() - started });
  }
}
