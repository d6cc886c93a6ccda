import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import type { Clock, Database } from '@playstack/server-kit';
import { recordIngestion } from '../storage/ingestion-counters.js';
import { crossServiceEdges, declaredEdge, type DependencyEdge } from '../storage/dependency-edges.js';
import { GroupCommit } from '../storage/group-commit.js';
import { multiRowInsertSql } from '../storage/multi-row-insert.js';
import { addOperation, addStatement, rollupLock } from '../storage/occurrence-rollups.js';
import { RollupAccumulator, rollupSpecs } from '../storage/rollup-accumulator.js';
import type { NewOccurrence, OccurrencesTable } from '../storage/storage-tables.js';
import { telemetryTables } from '../storage/telemetry-database.js';
import { noLogRows, packedCount, type PackedLogRows, type SqlLogWriter } from '../logs/index.js';
import { ErrorGroupAccumulator, errorGroupOf } from '../errors/error-group-merge.js';
import type { ErrorFingerprint } from '../errors/error-fingerprint.js';
import { errorGroupTables } from '../errors/error-group-tables.js';
import type { SqlTelemetryDatabase } from './sql-telemetry-database.js';

/** A row to store with its error group (none for an occurrence that is not an error with details). */
export type GroupedOccurrence = NewOccurrence & { errorGroup: ErrorFingerprint | undefined };

/** Fingerprints each error occurrence (errors/error-group-merge.ts): the group is stored with the row. */
export function withErrorGroups(rows: readonly NewOccurrence[]): GroupedOccurrence[] {
  return rows.map((row) => ({ ...row, errorGroup: errorGroupOf(row) }));
}

/** The columns of `occurrences` a row is inserted with, in insert order (`received_at` last). */
export const occurrenceColumns = [
  'client_id', 'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'service_version', 'instance',
  'operation', 'kind', 'started_at', 'duration_ms', 'status', 'tenant_id', 'http_method', 'http_route',
  'http_status_code', 'db_system', 'db_statement', 'db_statement_hash', 'db_operation', 'peer_service',
  'peer_address', 'error_type', 'error_message', 'error_stack', 'error_group_id', 'attributes', 'resource_attributes', 'events', 'links',
  'received_at',
] as const satisfies ReadonlyArray<keyof OccurrencesTable>;

/** The parameters of a `multiRowInsertSql` over `occurrenceColumns` for these rows (received at `receivedAt` unless a row says when). */
export function occurrenceParameters(rows: readonly GroupedOccurrence[], receivedAt: number): unknown[] {
  const parameters: unknown[] = [];
  for (const row of rows) {
    for (const column of occurrenceColumns) {
      parameters.push(column === 'received_at' ? (row.received_at ?? receivedAt) : column === 'error_group_id' ? (row.errorGroup?.groupId ?? null) : row[column]);
    }
  }
  return parameters;
}

/** Rows per INSERT statement: well under both dialects' bind parameter limits (SQLite 32,766). */
const rowsPerInsert = 1_000;

export interface OccurrenceWriterOptions {
  database: Database<SqlTelemetryDatabase>;
  clock: Clock;
  /** Envelopes waiting together are committed together, up to this many rows (occurrences and log records) per transaction. */
  maxRowsPerTransaction: number;
  /** Where log records go, in the same transaction as the occurrences they arrived with. */
  logs?: SqlLogWriter;
  /** False: writes are not counted as accepted items for the health view (the copy command's are not ingestion). Default true. */
  countsIngestion?: boolean;
  /** Called after each committed transaction (metrics). */
  onCommit?: (commit: { envelopes: number; rows: number; logs: number; durationMs: number }) => void;
}

interface PendingWrite {
  rows: readonly NewOccurrence[];
  logs: PackedLogRows;
  refused: number;
}

/**
 * Stores occurrences and their rollups, and log records, durably, with group commit
 * (group-commit.ts): envelopes that arrive while a transaction is running are committed together
 * by the next one. `write` resolves only after the transaction holding its rows has committed, so
 * an acknowledged envelope survives a crash; one bad envelope cannot fail its neighbours.
 */
export class OccurrenceWriter {
  readonly #options: OccurrenceWriterOptions;
  /** The full-chunk INSERT text; shorter chunks (one per transaction at most) are built as needed. */
  #fullChunkInsertSql: string | undefined;
  readonly #commits: GroupCommit<PendingWrite>;

  constructor(options: OccurrenceWriterOptions) {
    this.#options = options;
    this.#commits = new GroupCommit<PendingWrite>({
      maxGroupSize: options.maxRowsPerTransaction,
      size: (pending) => pending.rows.length + pending.logs.count,
      commit: (group) =>
        this.#commit(
          group.flatMap((pending) => pending.rows),
          group.map((pending) => pending.logs),
          group.reduce((sum, pending) => sum + pending.refused, 0),
          group.length,
        ),
    });
  }

  /**
   * Stores the rows and log records, and counts them and `refused` items of the same envelope for
   * the health view in the same transaction; resolves once they are committed.
   */
  write(rows: readonly NewOccurrence[], refused = 0, logs: PackedLogRows = noLogRows): Promise<void> {
    if (rows.length === 0 && logs.count === 0 && refused === 0) return Promise.resolve();
    if (logs.count > 0 && !this.#options.logs) return Promise.reject(new Error('this writer has no log store'));
    return this.#commits.submit({ rows, logs, refused });
  }

  /** Resolves when every write queued so far has settled. */
  idle(): Promise<void> {
    return this.#commits.idle();
  }

  async #commit(rows: readonly NewOccurrence[], logBatches: readonly PackedLogRows[], refused: number, envelopes: number): Promise<void> {
    const logs = packedCount(logBatches);
    const { database, clock, onCommit } = this.#options;
    const started = performance.now();
    await database.db.transaction().execute(async (trx) => {
      // Serializes rollup merges and log id assignment (log-ids.ts) across instances.
      if (database.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${rollupLock})`.execute(trx);
      const now = clock.now();
      if (rows.length > 0) {
        // Looked up before this batch is inserted: the stored spans are exactly the earlier ones.
        const parentChildEdges = await crossServiceEdges(telemetryTables(trx), rows);
        const grouped = withErrorGroups(rows);
        await this.#insertRows(trx, grouped, now);
        await mergeRollups(trx, grouped, parentChildEdges);
      }
      if (logs > 0) await this.#options.logs!.writeBatch(trx, logBatches, now);
      if (this.#options.countsIngestion !== false) await recordIngestion(telemetryTables(trx), now, rows.length + logs, refused);
    });
    onCommit?.({ envelopes, rows: rows.length, logs, durationMs: performance.now() - started });
  }

  async #insertRows(trx: Transaction<SqlTelemetryDatabase>, rows: readonly GroupedOccurrence[], receivedAt: number): Promise<void> {
    for (let offset = 0; offset < rows.length; offset += rowsPerInsert) {
      const chunk = rows.slice(offset, offset + rowsPerInsert);
      await trx.executeQuery(CompiledQuery.raw(this.#insertStatement(chunk.length), occurrenceParameters(chunk, receivedAt)));
    }
  }

  #insertStatement(rowCount: number): string {
    const build = () => multiRowInsertSql(this.#options.database.dialect, 'occurrences', occurrenceColumns, rowCount);
    return rowCount === rowsPerInsert ? (this.#fullChunkInsertSql ??= build()) : build();
  }
}

/** A batch's rollup cells and error groups, summed in memory (`mergeRollups` stores them). */
export interface BatchRollups {
  /** Operation, tenant, statement and dependency cells. */
  rollups: RollupAccumulator[];
  errorGroups: ErrorGroupAccumulator;
}

/**
 * Sums the rows' figures per minute into the four rollups: operation, tenant, statement (rows
 * with a normalized statement) and dependency (the edges rows declare, plus `parentChildEdges`),
 * and the error occurrences into their groups.
 */
export function accumulateRollups(rows: readonly GroupedOccurrence[], parentChildEdges: readonly DependencyEdge[]): BatchRollups {
  const errorGroups = new ErrorGroupAccumulator();
  const operations = new RollupAccumulator(rollupSpecs.operation);
  const tenants = new RollupAccumulator(rollupSpecs.tenant);
  const statements = new RollupAccumulator(rollupSpecs.statement);
  const dependencies = new RollupAccumulator(rollupSpecs.dependency);
  const addEdge = (edge: DependencyEdge) =>
    dependencies.add(edge.startedAt, [edge.environment, edge.sourceService, edge.target, edge.targetKind], [], edge.durationMs, edge.isError);
  for (const row of rows) {
    const isError = row.status === 'error';
    addOperation(operations, row);
    if (row.tenant_id !== null) tenants.add(row.started_at, [row.tenant_id, row.service, row.environment], [], row.duration_ms, isError);
    if (row.db_system !== null && row.db_statement_hash !== null && row.normalized_statement !== null) {
      addStatement(statements, { ...row, db_system: row.db_system }, { normalized: row.normalized_statement, hash: row.db_statement_hash });
    }
    const edge = declaredEdge(row);
    if (edge) addEdge(edge);
    if (row.errorGroup) errorGroups.add(row, row.errorGroup);
  }
  for (const edge of parentChildEdges) addEdge(edge);
  return { rollups: [operations, tenants, statements, dependencies], errorGroups };
}

/** Adds the rows' figures to the four per-minute rollups and the error occurrences to their groups (`accumulateRollups`). */
export async function mergeRollups(trx: Kysely<SqlTelemetryDatabase>, rows: readonly GroupedOccurrence[], parentChildEdges: readonly DependencyEdge[]): Promise<void> {
  const { rollups, errorGroups } = accumulateRollups(rows, parentChildEdges);
  for (const accumulator of rollups) await accumulator.mergeInto(telemetryTables(trx));
  await errorGroups.mergeInto(errorGroupTables(trx));
}
