import type { ObservabilityDb } from '../database.js';
import type { ServiceSettings } from './service-settings-schemas.js';
import { storedApdexThresholds, storedServiceSettings, storeApdexThreshold } from './service-settings-store.js';

/** Apdex thresholds per service: the stored ones, the default for the rest. */
export type ApdexThresholds = (services: readonly string[]) => Promise<Map<string, number>>;

export function apdexThresholdsFrom(db: ObservabilityDb, defaultMs: number): ApdexThresholds {
  return async (services) => {
    const stored = await storedApdexThresholds(db, services);
    return new Map(services.map((service) => [service, stored.get(service) ?? defaultMs]));
  };
}

/** A service's settings as the API serves them (every service has them, explicitly or by default). */
export async function serviceSettingsOf(db: ObservabilityDb, service: string, defaultMs: number): Promise<ServiceSettings> {
  const row = await storedServiceSettings(db, service);
  return {
    service,
    apdexThresholdMs: row ? Number(row.apdex_threshold_ms) : defaultMs,
    apdexThresholdIsDefault: row === undefined,
    updatedAt: row ? new Date(Number(row.updated_at)).toISOString() : null,
  };
}

/** Sets a service's Apdex threshold; figures read afterwards use it, over past data too. */
export async function setApdexThreshold(db: ObservabilityDb, service: string, thresholdMs: number, userId: string, now: number, defaultMs: number): Promise<ServiceSettings> {
  await storeApdexThreshold(db, service, thresholdMs, userId, now);
  return serviceSettingsOf(db, service, defaultMs);
}
