import type { Kysely } from 'kysely';

/** Per-service settings (src/migrations/2026-11-27-02-entry-spans-apdex.ts); a service without a row uses the defaults. */
export interface ServiceSettingsTable {
  service: string;
  /** The Apdex threshold T in milliseconds: satisfied at or below T, tolerating up to 4T. */
  apdex_threshold_ms: number;
  updated_at: number;
  /** The user who last changed it (their id), when known. */
  updated_by: string | null;
}

export interface ServiceSettingsTables {
  service_settings: ServiceSettingsTable;
}

/** Thresholds per service, read in one query. */
export async function storedApdexThresholds(db: Kysely<any>, services: readonly string[]): Promise<Map<string, number>> {
  if (services.length === 0) return new Map();
  const rows = await (db as Kysely<ServiceSettingsTables>)
    .selectFrom('service_settings')
    .select(['service', 'apdex_threshold_ms'])
    .where('service', 'in', [...new Set(services)])
    .execute();
  return new Map(rows.map((row) => [row.service, Number(row.apdex_threshold_ms)]));
}

/** One service's stored row, or undefined when it uses the defaults. */
export async function storedServiceSettings(db: Kysely<any>, service: string): Promise<ServiceSettingsTable | undefined> {
  return (db as Kysely<ServiceSettingsTables>).selectFrom('service_settings').selectAll().where('service', '=', service).executeTakeFirst();
}

export async function storeApdexThreshold(db: Kysely<any>, service: string, thresholdMs: number, updatedBy: string, now: number): Promise<void> {
  await (db as Kysely<ServiceSettingsTables>)
    .insertInto('service_settings')
    .values({ service, apdex_threshold_ms: thresholdMs, updated_at: now, updated_by: updatedBy })
    .onConflict((oc) => oc.column('service').doUpdateSet({ apdex_threshold_ms: thresholdMs, updated_at: now, updated_by: updatedBy }))
    .execute();
}
