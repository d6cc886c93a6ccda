import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '@playstack/server-kit';
import { rollupLock } from './occurrence-rollups.js';
import type { TelemetryDatabase, OccurrencesTable } from './storage-tables.js';
import { telemetryTables } from './telemetry-database.js';

/**
 * Recomputing what ingestion derives from occurrences (rollups, error groups) from the stored
 * raw occurrences, when the rules that derive it change. A migration asks for it by inserting
 * `rebuild:<part>` into `rollup_tier_state` (migrations are frozen, the rules are not: the work
 * itself is done by the current code, once every migration has run, before the service serves).
 */

/** Name prefix of the `rollup_tier_state` rows that ask for a rebuild. */
export const rebuildRequestPrefix = 'rebuild:';

/** The columns a rebuild reads of each stored occurrence. */
const rebuildColumns = [
  'id', 'trace_id', 'span_id', 'parent_span_id', 'service', 'environment', 'operation', 'kind', 'started_at', 'duration_ms', 'status',
  'tenant_id', 'http_status_code', 'db_system', 'db_statement', 'db_statement_hash', 'db_operation', 'error_type', 'error_message', 'error_stack', 'error_group_id', 'attributes',
] as const satisfies ReadonlyArray<keyof OccurrencesTable>;

export type RebuildRow = Pick<Selectable<OccurrencesTable>, (typeof rebuildColumns)[number]>;

/**
 * Something derived from the raw occurrences that can be computed again from them, kept in
 * `Tables` (a feature's own tables beside the occurrences): it runs in a transaction over any
 * database that has them.
 */
export interface RebuildPart<Tables extends TelemetryDatabase = TelemetryDatabase> {
  /** `rebuild:<name>` in `rollup_tier_state` requests it. */
  name: string;
  /** Empties what the part derives, before the first chunk. */
  clear<DB extends Tables>(trx: Kysely<DB>): Promise<void>;
  /** Adds what a chunk of stored occurrences (in start order) contributes; chunks may share minutes. */
  addChunk<DB extends Tables>(trx: Kysely<DB>, rows: readonly RebuildRow[]): Promise<void>;
  /** False for a part that derives nothing the rollup tiers are computed from (they are then kept). */
  feedsTiers: boolean;
}

/** Occurrence ids per UPDATE when a rebuild changes a stored column. */
const idsPerUpdate = 500;

/** Sets a derived occurrence column to each value for the occurrence ids listed under it. */
export async function setOccurrenceColumn(
  trx: Kysely<TelemetryDatabase>,
  column: 'db_statement_hash' | 'error_group_id',
  idsByValue: ReadonlyMap<string | null, readonly number[]>,
): Promise<void> {
  for (const [value, ids] of idsByValue) {
    for (let offset = 0; offset < ids.length; offset += idsPerUpdate) {
      await trx.updateTable('occurrences').set({ [column]: value }).where('id', 'in', ids.slice(offset, offset + idsPerUpdate)).execute();
    }
  }
}

/** Occurrences read per chunk: bounds the memory a rebuild holds, whatever the table size. */
const chunkRows = 20_000;

/** The tier watermark's row: dropping it makes the compactor recompute every tier from the rollups. */
const tierWatermarkName = 'occurrence-id';

export interface RebuildResult {
  parts: string[];
  occurrences: number;
}

/**
 * Runs the rebuilds that migrations asked for, in one transaction holding the rollup lock: it
 * commits whole or not at all (a crash leaves the request in place for the next start), and on
 * PostgreSQL a second instance starting at the same time waits, then finds nothing left to do.
 * The tiers are recomputed afterwards by the compactor (queries read the per-minute rollups
 * until it has caught up).
 */
export async function runRequestedRebuilds<DB extends TelemetryDatabase>(database: Database<DB>, parts: readonly RebuildPart<DB>[]): Promise<RebuildResult> {
  return database.db.transaction().execute(async (transaction) => {
    const trx = telemetryTables(transaction);
    if (database.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${rollupLock})`.execute(trx);
    const requests = await trx.selectFrom('rollup_tier_state').select('name').where('name', 'like', `${rebuildRequestPrefix}%`).execute();
    const requested = new Set(requests.map((row) => row.name.slice(rebuildRequestPrefix.length)));
    const chosen = parts.filter((part) => requested.has(part.name));
    if (chosen.length === 0) return { parts: [], occurrences: 0 };
    for (const part of chosen) await part.clear(transaction);
    let occurrences = 0;
    let after: { startedAt: number; id: number } | undefined;
    for (;;) {
      let query = trx.selectFrom('occurrences').select(rebuildColumns);
      if (after) {
        const { startedAt, id } = after;
        query = query.where((eb) => eb.or([eb('started_at', '>', startedAt), eb.and([eb('started_at', '=', startedAt), eb('id', '>', id)])]));
      }
      const rows = await query.orderBy('started_at').orderBy('id').limit(chunkRows).execute();
      if (rows.length === 0) break;
      for (const part of chosen) await part.addChunk(transaction, rows);
      occurrences += rows.length;
      const last = rows[rows.length - 1]!;
      after = { startedAt: Number(last.started_at), id: Number(last.id) };
      if (rows.length < chunkRows) break;
    }
    await trx
      .deleteFrom('rollup_tier_state')
      .where('name', 'in', [...chosen.map((part) => `${rebuildRequestPrefix}${part.name}`), ...(chosen.some((part) => part.feedsTiers) ? [tierWatermarkName] : [])])
      .execute();
    return { parts: chosen.map((part) => part.name), occurrences };
  });
}
