import { cellId } from '../storage/rollup-accumulator.js';
import { minuteMs } from '../time-units.js';
import type { LogsTable, NewLogRecord } from './log-tables.js';
import { traceKey } from './log-trace-key.js';

/** The columns of `logs` in insert order: the packed form's, and the INSERT's. */
export const logColumns = [
  'id', 'time_ms', 'time_ns', 'observed_ms', 'severity_number', 'severity_text', 'body', 'body_json', 'event_name',
  'service', 'environment', 'service_version', 'instance', 'scope_name', 'scope_version', 'trace_id', 'span_id',
  'flags', 'tenant_id', 'attributes', 'resource_attributes', 'received_at',
] as const satisfies ReadonlyArray<keyof LogsTable>;

/** Values per record in a packed batch. */
export const logStride = logColumns.length;

/** Where each column sits within a record's values. */
export const logColumn = Object.fromEntries(logColumns.map((name, index) => [name, index])) as { readonly [Name in (typeof logColumns)[number]]: number };

/**
 * Log records as one flat array of their column values in `logColumns` order, `id` 0 until the
 * store assigns it and `received_at` null unless the record carries one (a copied record). This
 * is what crosses to the SQLite writer thread and, with the ids filled in, the INSERT's
 * parameters: a structured clone of plain values costs about a fifth of the records as objects to
 * send and two thirds to receive (1.4 and 1.6 µs a record as objects, 0.3 and 1.1 flat), and the
 * writer copies values (or, for one request, nothing) instead of reading objects' properties.
 */
export interface PackedLogRows {
  readonly count: number;
  readonly values: unknown[];
  /** Each record's trace directory key (log-trace-key.ts), -1 for a record without a trace id: hashed here rather than on the writer thread. */
  readonly traceKeys: Float64Array;
  /**
   * The records counted per minute and key, as the counts tables keep them, summed where they are
   * packed (the receiving thread): the writer adds a few cells per request instead of looking up
   * a cell per record.
   */
  readonly minuteCounts: {
    /** Keyed by service, environment and severity number (`log_counts`). */
    readonly severities: MinuteCount[];
    /** Keyed by tenant, service and environment (`log_tenant_counts`), for records with a tenant. */
    readonly tenants: MinuteCount[];
  };
}

/** Records of one minute (its start, epoch milliseconds) and key. */
export interface MinuteCount {
  minuteMs: number;
  key: Array<string | number>;
  count: number;
}

/** Sums records per minute and key. */
class MinuteCounts {
  readonly #cells = new Map<string, MinuteCount>();

  add(timeMs: number, key: Array<string | number>): void {
    const minute = timeMs - (timeMs % minuteMs);
    const id = cellId(minute, key);
    const cell = this.#cells.get(id);
    if (cell) cell.count += 1;
    else this.#cells.set(id, { minuteMs: minute, key, count: 1 });
  }

  get cells(): MinuteCount[] {
    return [...this.#cells.values()];
  }
}

export function packLogRows(rows: readonly NewLogRecord[]): PackedLogRows {
  // Pushed, not preallocated: V8 clones an array with holes (as `new Array(n)` makes) element by
  // element as a sparse one, several times slower.
  const values: unknown[] = [];
  const severities = new MinuteCounts();
  const tenants = new MinuteCounts();
  const traceKeys = new Float64Array(rows.length);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    traceKeys[index] = row.trace_id === null ? -1 : traceKey(row.trace_id);
    severities.add(row.time_ms, [row.service, row.environment, row.severity_number]);
    if (row.tenant_id !== null) tenants.add(row.time_ms, [row.tenant_id, row.service, row.environment]);
    values.push(
      0,
      row.time_ms,
      row.time_ns,
      row.observed_ms,
      row.severity_number,
      row.severity_text,
      row.body,
      row.body_json,
      row.event_name,
      row.service,
      row.environment,
      row.service_version,
      row.instance,
      row.scope_name,
      row.scope_version,
      row.trace_id,
      row.span_id,
      row.flags,
      row.tenant_id,
      row.attributes,
      row.resource_attributes,
      row.received_at ?? null,
    );
  }
  return { count: rows.length, values, traceKeys, minuteCounts: { severities: severities.cells, tenants: tenants.cells } };
}

/** No records (a write of spans alone): shared, since a store never changes an empty batch. */
export const noLogRows: PackedLogRows = packLogRows([]);

/** How many records the batches hold. */
export function packedCount(batches: readonly PackedLogRows[]): number {
  let count = 0;
  for (const batch of batches) count += batch.count;
  return count;
}
