import type { RollupAccumulator } from './rollup-accumulator.js';
import { schemaLock } from './schema-lock.js';
import { spanRoleOf } from './span-role.js';
import type { NewOccurrence } from './storage-tables.js';

/**
 * How one occurrence adds to the per-minute rollups, shared by ingestion's writer
 * (telemetry/occurrence-writer.ts) and the rebuilds that recompute a rollup from the stored
 * occurrences (rollup-rebuild.ts), so the two cannot disagree.
 */

/** Serializes rollup merges (and rebuilds) across PostgreSQL instances (SQLite's write lock does it there). */
export const rollupLock = schemaLock(0x6f627372); // "obsr"

/** The figures of an occurrence, added to its operation's rollup cell (keyed by its span role too). */
export function addOperation(
  operations: RollupAccumulator,
  row: Pick<NewOccurrence, 'started_at' | 'service' | 'environment' | 'operation' | 'kind' | 'parent_span_id' | 'duration_ms' | 'status'>,
): void {
  operations.add(row.started_at, [row.service, row.environment, row.operation, row.kind, spanRoleOf(row.kind, row.parent_span_id)], [], row.duration_ms, row.status === 'error');
}

/** The figures of a database occurrence, added to its statement's rollup cell. */
export function addStatement(
  statements: RollupAccumulator,
  row: Pick<NewOccurrence, 'started_at' | 'service' | 'environment' | 'db_operation' | 'duration_ms' | 'status'> & { db_system: string },
  shape: { normalized: string; hash: string },
): void {
  statements.add(row.started_at, [row.service, row.environment, row.db_system, shape.hash], [shape.normalized, row.db_operation], row.duration_ms, row.status === 'error');
}
