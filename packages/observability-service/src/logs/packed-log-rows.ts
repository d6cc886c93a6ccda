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

/**
 * Sums records per minute and key `[...fixed, varying]` (or `[varying, ...fixed]` with
 * `varyingFirst`). A request's records mostly share their minute and the fixed parts (the
 * resource's service and environment) and differ in one (severity, tenant): those are counted
 * through the previous record's group, by the varying part alone, with no key built.
 */
class MinuteCounts {
  readonly #cells: MinuteCount[] = [];
  readonly #groups = new Map<string, Map<string | number, MinuteCount>>();
  readonly #varyingFirst: boolean;
  #minute = Number.NaN;
  #first: string | undefined;
  #second: string | undefined;
  #group: Map<string | number, MinuteCount> | undefined;

  constructor(varyingFirst: boolean) {
    this.#varyingFirst = varyingFirst;
  }

  add(timeMs: number, first: string, second: string, varying: string | number): void {
    const minute = timeMs - (timeMs % minuteMs);
    if (minute !== this.#minute || first !== this.#first || second !== this.#second) {
      const groupId = cellId(minute, [first, second]);
      let group = this.#groups.get(groupId);
      if (!group) this.#groups.set(groupId, (group = new Map()));
      [this.#minute, this.#first, this.#second, this.#group] = [minute, first, second, group];
    }
    const cell = this.#group!.get(varying);
    if (cell) {
      cell.count += 1;
      return;
    }
    const key = this.#varyingFirst ? [varying, first, second] : [first, second, varying];
    const fresh = { minuteMs: minute, key, count: 1 };
    this.#group!.set(varying, fresh);
    this.#cells.push(fresh);
  }

  get cells(): MinuteCount[] {
    return this.#cells;
  }
}

export function packLogRows(rows: readonly NewLogRecord[]): PackedLogRows {
  // Pushed, not preallocated: V8 clones an array with holes (as `new Array(n)` makes) element by
  // element as a sparse one, several times slower.
  const values: unknown[] = [];
  const severities = new MinuteCounts(false);
  const tenants = new MinuteCounts(true);
  const traceKeys = new Float64Array(rows.length);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    traceKeys[index] = row.trace_id === null ? -1 : traceKey(row.trace_id);
    severities.add(row.time_ms, row.service, row.environment, row.severity_number);
    if (row.tenant_id !== null) tenants.add(row.time_ms, row.service, row.environment, row.tenant_id);
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
