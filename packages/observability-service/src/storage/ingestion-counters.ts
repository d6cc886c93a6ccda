import { sql, type Kysely } from 'kysely';
import type { TelemetryDatabase } from './storage-tables.js';
import { minuteOf } from '../time-units.js';

/**
 * Counts an envelope's items for the health view; ingestion calls this once per envelope
 * (refused items include those of a whole envelope refused for its size).
 */
export async function recordIngestion(db: Kysely<TelemetryDatabase>, receivedAtMs: number, accepted: number, refused: number): Promise<void> {
  if (accepted === 0 && refused === 0) return;
  const minute = minuteOf(receivedAtMs);
  await db
    .insertInto('ingestion_minutes')
    .values({ minute, accepted, refused })
    .onConflict((oc) =>
      oc.column('minute').doUpdateSet({
        accepted: sql`ingestion_minutes.accepted + excluded.accepted`,
        refused: sql`ingestion_minutes.refused + excluded.refused`,
      }),
    )
    .execute();
}

/** Items accepted and refused in the minutes starting in [fromMs, toMs). */
export async function ingestionTotals(db: Kysely<TelemetryDatabase>, fromMs: number, toMs: number): Promise<{ accepted: number; refused: number }> {
  const row = await db
    .selectFrom('ingestion_minutes')
    .select((eb) => [eb.fn.sum<number>('accepted').as('accepted'), eb.fn.sum<number>('refused').as('refused')])
    .where('minute', '>=', fromMs)
    .where('minute', '<', toMs)
    .executeTakeFirst();
  return { accepted: Number(row?.accepted ?? 0), refused: Number(row?.refused ?? 0) };
}

/** Forgets counts of minutes before `beforeMs` (retention). */
export async function pruneIngestionCounters(db: Kysely<TelemetryDatabase>, beforeMs: number): Promise<void> {
  await db.deleteFrom('ingestion_minutes').where('minute', '<', beforeMs).execute();
}
