import { sql, type Kysely } from 'kysely';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { minuteMs } from '../time-units.js';

const watermarkName = 'occurrence-id';

const traceChunk = 500;

/**
 * Past this many occurrence ids beyond the watermark, a query reads the per-minute rollups only.
 * Ids, not rows: the difference is an upper bound on the rows (an id of a rolled-back insert is
 * never used) that costs one index probe, where counting the rows is a scan.
 */
export const dirtyRowsMax = 50_000;

/** The id of the last occurrence the tiers include (0 before the first compaction). */
export async function tierWatermark(db: Kysely<TelemetryDatabase>): Promise<number> {
  const row = await db.selectFrom('rollup_tier_state').select('value').where('name', '=', watermarkName).executeTakeFirst();
  return row ? Number(row.value) : 0;
}

/** The id of the newest occurrence (0 when there is none): the end of the primary key, no scan. */
export async function newestOccurrenceId(db: Kysely<TelemetryDatabase>): Promise<number> {
  const newest = await db.selectFrom('occurrences').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(newest?.id ?? 0);
}

/** Records that the tiers now include every occurrence up to `id`. */
export async function setTierWatermark(db: Kysely<TelemetryDatabase>, id: number): Promise<void> {
  await db
    .insertInto('rollup_tier_state')
    .values({ name: watermarkName, value: id })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: id }))
    .execute();
}

/**
 * The trace id of every occurrence with id in (afterId, throughId], one row each. Both ends are
 * given so that a planner without statistics (PostgreSQL before its first ANALYZE, or with
 * autovacuum off) estimates a narrow range and walks the primary key; with one end it scans the
 * table. No DISTINCT: with it SQLite walks the trace index over the whole table instead.
 */
export function tracesWrittenBetween(db: Kysely<TelemetryDatabase>, afterId: number, throughId: number) {
  return db.selectFrom('occurrences').select('trace_id').where('id', '>', afterId).where('id', '<=', throughId);
}

/**
 * The minutes whose rollups changed since the tiers were computed: those of every span of a
 * trace that has an occurrence with id in (afterId, throughId]. The whole trace, because a late
 * parent adds a dependency edge in its child's minute.
 */
export async function minutesTouched(db: Kysely<TelemetryDatabase>, afterId: number, throughId: number): Promise<Set<number>> {
  const traceIds = [...new Set((await tracesWrittenBetween(db, afterId, throughId).execute()).map((row) => row.trace_id))];
  const minutes = new Set<number>();
  // Looked up by trace (indexed) in chunks: an IN over a subquery can become a full scan.
  for (let offset = 0; offset < traceIds.length; offset += traceChunk) {
    const result = await sql<{ minute: number }>`
      select distinct started_at - (started_at % ${sql.lit(minuteMs)}) as minute
      from occurrences
      where trace_id in (${sql.join(traceIds.slice(offset, offset + traceChunk))})
    `.execute(db);
    for (const row of result.rows) minutes.add(Number(row.minute));
  }
  return minutes;
}

/**
 * What a query may take from the tiers: the dirty minutes to read from the per-minute rollups
 * instead, or undefined when the tiers are too far behind to be worth using.
 */
export async function dirtyMinutesNow(db: Kysely<TelemetryDatabase>): Promise<Set<number> | undefined> {
  const [watermark, newest] = await Promise.all([tierWatermark(db), newestOccurrenceId(db)]);
  if (newest <= watermark) return new Set();
  if (newest - watermark > dirtyRowsMax) return undefined;
  return minutesTouched(db, watermark, newest);
}
