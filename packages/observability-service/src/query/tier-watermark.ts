import { sql, type Kysely } from 'kysely';
import type { TelemetryDatabase } from '../storage/storage-tables.js';
import { minuteMs } from '../time-units.js';

const watermarkName = 'occurrence-id';

const traceChunk = 500;

/** Past this many occurrences beyond the watermark, a query reads the per-minute rollups only. */
export const dirtyRowsMax = 50_000;

/** The id of the last occurrence the tiers include (0 before the first compaction). */
export async function tierWatermark(db: Kysely<TelemetryDatabase>): Promise<number> {
  const row = await db.selectFrom('rollup_tier_state').select('value').where('name', '=', watermarkName).executeTakeFirst();
  return row ? Number(row.value) : 0;
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
 * The minutes whose rollups changed since the tiers were computed: those of every span of a
 * trace that has an occurrence with id in (afterId, throughId]. The whole trace, because a late
 * parent adds a dependency edge in its child's minute.
 */
export async function minutesTouched(db: Kysely<TelemetryDatabase>, afterId: number, throughId?: number): Promise<Set<number>> {
  // No DISTINCT: with it SQLite walks the trace index over the whole table instead of the id range.
  let traces = db.selectFrom('occurrences').select('trace_id').where('id', '>', afterId);
  if (throughId !== undefined) traces = traces.where('id', '<=', throughId);
  const traceIds = [...new Set((await traces.execute()).map((row) => row.trace_id))];
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
  const watermark = await tierWatermark(db);
  const beyond = await sql<{ n: number }>`select count(*) as n from (select 1 from occurrences where id > ${watermark} limit ${dirtyRowsMax + 1}) as pending`.execute(db);
  if (Number(beyond.rows[0]?.n ?? 0) > dirtyRowsMax) return undefined;
  return minutesTouched(db, watermark);
}
