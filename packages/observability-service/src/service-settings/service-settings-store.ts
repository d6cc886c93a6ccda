import type { ObservabilityDb } from '../database.js';
import type { ServiceSettingsTable } from './service-settings-tables.js';

/** Thresholds per service, read in one query. */
export async function storedApdexThresholds(db: ObservabilityDb, services: readonly string[]): Promise<Map<string, number>> {
  if (services.length === 0) return new Map();
  const rows = await db
    .selectFrom('service_settings')
    .select(['service', 'apdex_threshold_ms'])
    .where('service', 'in', [...new Set(services)])
    .execute();
  return new Map(rows.map((row) => [row.service, Number(row.apdex_threshold_ms)]));
}

/** One service's stored row, or undefined when it uses the defaults. */
export async function storedServiceSettings(db: ObservabilityDb, service: string): Promise<ServiceSettingsTable | undefined> {
  return db.selectFrom('service_settings').selectAll().where('service', '=', service).executeTakeFirst();
}

export async function storeApdexThreshold(db: ObservabilityDb, service: string, thresholdMs: number, updatedBy: string, now: number): Promise<void> {
  await db
    .insertInto('service_settings')
    .values({ service, apdex_threshold_ms: thresholdMs, updated_at: now, updated_by: updatedBy })
    .onConflict((oc) => oc.column('service').doUpdateSet({ apdex_threshold_ms: thresholdMs, updated_at: now, updated_by: updatedBy }))
    .execute();
}
