import type { Kysely } from 'kysely';
import { getSetting, putSetting } from './settings-store.js';

const retentionSetting = 'retention-days';

/** Bounds of the retention an admin may set, in days. */
export const minRetentionDays = 1;
export const maxRetentionDays = 3650;

/**
 * Days of telemetry to keep: what an admin set, or `fallbackDays` (config `RETENTION_DAYS`) while
 * nobody has. Pruning calls this each run, so a change applies without a restart.
 */
export async function getRetentionDays(db: Kysely<any>, fallbackDays: number): Promise<number> {
  const days = Number(await getSetting(db, retentionSetting));
  return Number.isInteger(days) && days >= minRetentionDays ? days : fallbackDays;
}

/** Stores the retention an admin chose. */
export async function setRetentionDays(db: Kysely<any>, days: number, now: number): Promise<void> {
  await putSetting(db, retentionSetting, String(days), now);
}
