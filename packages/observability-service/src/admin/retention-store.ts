import type { Kysely } from 'kysely';

/** A row of `settings`: one named value, stored as text. */
export interface SettingRow {
  name: string;
  value: string;
  updated_at: number;
}

export interface SettingsTables {
  settings: SettingRow;
}

const retentionSetting = 'retention-days';

/**
 * Days of telemetry to keep: what an admin set, or `fallbackDays` (config `RETENTION_DAYS`) while
 * nobody has. Pruning calls this each run, so a change applies without a restart.
 */
export async function getRetentionDays(db: Kysely<any>, fallbackDays: number): Promise<number> {
  const row = await (db as Kysely<SettingsTables>)
    .selectFrom('settings')
    .select('value')
    .where('name', '=', retentionSetting)
    .executeTakeFirst();
  const days = row ? Number(row.value) : Number.NaN;
  return Number.isInteger(days) && days > 0 ? days : fallbackDays;
}

/** Stores the retention an admin chose. */
export async function setRetentionDays(db: Kysely<SettingsTables>, days: number, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name: retentionSetting, value: String(days), updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: String(days), updated_at: now }))
    .execute();
}
