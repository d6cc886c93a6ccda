import { sql, type Kysely } from 'kysely';
import { minuteOf } from '../time-units.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { TelemetryDatabase } from './storage-tables.js';

export type RollupTableName = 'operation_rollups' | 'tenant_rollups' | 'statement_rollups' | 'dependency_rollups';

/** A rollup table's key (after `minute`), the descriptive columns it also keeps, and its lookup column. */
export interface RollupSpec {
  table: RollupTableName;
  keyColumns: readonly string[];
  /** Set on insert, kept on update (they are functions of the key). */
  extraColumns: readonly string[];
  /** The most selective key column, used with `minute` to fetch the rows a batch touches. */
  lookupColumn: string;
  /** Also keeps `error_histogram`, the latencies of the error occurrences alone (for Apdex). */
  errorHistogram: boolean;
}

export const rollupSpecs = {
  operation: {
    table: 'operation_rollups',
    keyColumns: ['service', 'environment', 'operation', 'kind', 'span_role'],
    extraColumns: [],
    lookupColumn: 'operation',
    errorHistogram: true,
  },
  tenant: { table: 'tenant_rollups', keyColumns: ['tenant_id', 'service', 'environment'], extraColumns: [], lookupColumn: 'tenant_id', errorHistogram: false },
  statement: {
    table: 'statement_rollups',
    keyColumns: ['service', 'environment', 'db_system', 'statement_hash'],
    extraColumns: ['statement', 'db_operation'],
    lookupColumn: 'statement_hash',
    errorHistogram: false,
  },
  dependency: {
    table: 'dependency_rollups',
    keyColumns: ['environment', 'source_service', 'target', 'target_kind'],
    extraColumns: [],
    lookupColumn: 'source_service',
    errorHistogram: false,
  },
} as const satisfies Record<string, RollupSpec>;

interface Cell {
  minute: number;
  key: readonly string[];
  extras: ReadonlyArray<string | null>;
  count: number;
  errorCount: number;
  durationSumMs: number;
  durationMaxMs: number;
  histogram: LatencyHistogram;
  errorHistogram: LatencyHistogram;
}

/** Identifies a cell; length prefixes keep distinct tuples distinct whatever characters the names hold. */
export function cellId(minute: number, key: readonly unknown[]): string {
  let id = String(minute);
  for (const part of key) {
    const text = String(part);
    id += `|${text.length}:${text}`;
  }
  return id;
}

/** The figure columns of a rollup table. */
function figureColumns(spec: RollupSpec): string[] {
  return ['count', 'error_count', 'duration_sum_ms', 'duration_max_ms', 'histogram', ...(spec.errorHistogram ? ['error_histogram'] : [])];
}

/** A stored histogram (or none) plus this batch's, in the stored form. */
function mergedText(stored: unknown, batch: LatencyHistogram): string {
  return stored === undefined || stored === null ? batch.encode() : LatencyHistogram.decode(String(stored)).merge(batch).encode();
}

/**
 * Sums one batch's occurrences per minute and key in memory, then merges the sums into the stored
 * rows. Callers serialize merges (a transaction holding the rollup lock), so read-then-upsert
 * cannot lose a concurrent update.
 */
export class RollupAccumulator {
  readonly #spec: RollupSpec;
  readonly #cells = new Map<string, Cell>();

  constructor(spec: RollupSpec) {
    this.#spec = spec;
  }

  /** The table the cells are merged into. */
  get table(): RollupTableName {
    return this.#spec.table;
  }

  get size(): number {
    return this.#cells.size;
  }

  /** Adds one occurrence to its cell. */
  add(startedAt: number, key: readonly string[], extras: ReadonlyArray<string | null>, durationMs: number, isError: boolean): void {
    const minute = minuteOf(startedAt);
    const id = cellId(minute, key);
    let cell = this.#cells.get(id);
    if (!cell) {
      cell = { minute, key, extras, count: 0, errorCount: 0, durationSumMs: 0, durationMaxMs: 0, histogram: new LatencyHistogram(), errorHistogram: new LatencyHistogram() };
      this.#cells.set(id, cell);
    }
    cell.count += 1;
    if (isError) {
      cell.errorCount += 1;
      if (this.#spec.errorHistogram) cell.errorHistogram.record(durationMs);
    }
    cell.durationSumMs += durationMs;
    if (durationMs > cell.durationMaxMs) cell.durationMaxMs = durationMs;
    cell.histogram.record(durationMs);
  }

  /** Merges the batch's cells into the table: stored figures plus this batch's. */
  async mergeInto(db: Kysely<TelemetryDatabase>): Promise<void> {
    if (this.#cells.size === 0) return;
    const spec = this.#spec;
    // Kysely cannot type a table chosen at run time: the statements are written out, naming only
    // the spec's columns of this table.
    const table = sql.table(spec.table);
    const minutes = [...new Set([...this.#cells.values()].map((cell) => cell.minute))];
    const lookupIndex = spec.keyColumns.indexOf(spec.lookupColumn);
    const lookupValues = [...new Set([...this.#cells.values()].map((cell) => cell.key[lookupIndex]!))];
    const stored = new Map<string, Record<string, unknown>>();
    for (let offset = 0; offset < lookupValues.length; offset += 500) {
      const { rows } = await sql<Record<string, unknown>>`
        select * from ${table}
        where ${sql.ref('minute')} in (${sql.join(minutes)}) and ${sql.ref(spec.lookupColumn)} in (${sql.join(lookupValues.slice(offset, offset + 500))})
      `.execute(db);
      for (const row of rows) {
        const id = cellId(Number(row.minute), spec.keyColumns.map((column) => row[column]));
        stored.set(id, row);
      }
    }
    const merged = this.#merged(stored);
    const figures = figureColumns(spec);
    const columns = this.columns;
    const conflictColumns = sql.join(['minute', ...spec.keyColumns].map((column) => sql.ref(column)));
    const updates = sql.join(figures.map((column) => sql`${sql.ref(column)} = ${sql.ref(`excluded.${column}`)}`));
    const rowsPerStatement = Math.floor(30_000 / columns.length);
    for (let offset = 0; offset < merged.length; offset += rowsPerStatement) {
      const values = merged.slice(offset, offset + rowsPerStatement).map((row) => sql`(${sql.join(columns.map((column) => row[column]))})`);
      await sql`
        insert into ${table} (${sql.join(columns.map((column) => sql.ref(column)))}) values ${sql.join(values)}
        on conflict (${conflictColumns}) do update set ${updates}
      `.execute(db);
    }
  }

  /** The table's columns, in insert order: minute, key, extras, figures. */
  get columns(): string[] {
    return ['minute', ...this.#spec.keyColumns, ...this.#spec.extraColumns, ...figureColumns(this.#spec)];
  }

  /**
   * The rows `mergeInto` stores when the table holds none of the batch's cells yet: a bulk load
   * of whole minutes inserts them as they are (bench/support/occurrence-data-set.ts).
   */
  newRows(): Array<Record<string, unknown>> {
    return this.#merged(new Map());
  }

  /** The batch's cells as stored rows, each added to the stored row of its cell in `stored`. */
  #merged(stored: ReadonlyMap<string, Record<string, unknown>>): Array<Record<string, unknown>> {
    const spec = this.#spec;
    return [...this.#cells.entries()].map(([id, cell]) => {
      const before = stored.get(id);
      const row: Record<string, unknown> = { minute: cell.minute };
      spec.keyColumns.forEach((column, index) => (row[column] = cell.key[index]));
      spec.extraColumns.forEach((column, index) => (row[column] = before?.[column] ?? cell.extras[index] ?? null));
      row.count = cell.count + Number(before?.count ?? 0);
      row.error_count = cell.errorCount + Number(before?.error_count ?? 0);
      row.duration_sum_ms = cell.durationSumMs + Number(before?.duration_sum_ms ?? 0);
      row.duration_max_ms = Math.max(cell.durationMaxMs, Number(before?.duration_max_ms ?? 0));
      row.histogram = mergedText(before?.histogram, cell.histogram);
      if (spec.errorHistogram) row.error_histogram = mergedText(before?.error_histogram, cell.errorHistogram);
      return row;
    });
  }
}
