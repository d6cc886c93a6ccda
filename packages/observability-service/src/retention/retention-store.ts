import type { Kysely } from 'kysely';
import { getSetting, putSetting } from './settings-store.js';

const retentionSetting = 'retention-days';

/** The days of telemetry an admin chose, as stored (unchecked); undefined while nobody has. */
export async function storedRetentionDays(db: Kysely<any>): Promise<number | undefined> {
  const value = await getSetting(db, retentionSetting);
  return value === undefined ? undefined : Number(value);
}

/** Stores the retention an admin chose. */
export async function storeRetentionDays(db: Kysely<any>, days: number, now: number): Promise<void> {
  await putSetting(db, retentionSetting, String(days), now);
}
