import type { ObservabilityDb } from '../database.js';
import { getSetting, putSetting } from './settings-store.js';

const retentionSetting = 'retention-days';

/** The days of telemetry an admin chose, as stored (unchecked); undefined while nobody has. */
export async function storedRetentionDays(db: ObservabilityDb): Promise<number | undefined> {
  const value = await getSetting(db, retentionSetting);
  return value === undefined ? undefined : Number(value);
}

/** Stores the retention an admin chose. */
export async function storeRetentionDays(db: ObservabilityDb, days: number, now: number): Promise<void> {
  await putSetting(db, retentionSetting, String(days), now);
}
