import type { TelemetryStore } from '../telemetry/index.js';
import type { HealthViewResponse } from './health-schemas.js';

/** Items per minute average over the 15 whole minutes before the current one (the store counts them). */
const rateWindowMinutes = 15;

/**
 * The retention in force, read afresh. Declared here, not imported: the retention feature's
 * policy fits it, and health stays below retention (which prunes health's counters).
 */
export interface RetentionInForce {
  refresh(): Promise<number>;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Ingestion, storage, retention and database status, for operators. */
export async function healthView(store: Pick<TelemetryStore, 'health'>, nowMs: number, retention: RetentionInForce): Promise<HealthViewResponse> {
  const checkedAt = new Date(nowMs).toISOString();
  const figures = await store.health(nowMs);
  if ('unreachable' in figures) {
    return { checkedAt, ingestion: null, storage: null, retention: null, database: { dialect: figures.kind, status: 'unreachable', latencyMs: null, message: figures.unreachable } };
  }
  const days = await retention.refresh();
  return {
    checkedAt,
    ingestion: {
      lastReceivedAt: isoOrNull(figures.lastReceivedAtMs),
      itemsPerMinute: figures.acceptedLast15Minutes / rateWindowMinutes,
      acceptedLast24h: figures.acceptedLast24h,
      refusedLast24h: figures.refusedLast24h,
    },
    storage: { sizeBytes: figures.sizeBytes, rows: figures.rows },
    retention: { days, oldestOccurrenceAt: isoOrNull(figures.oldestStartedAtMs) },
    database: { dialect: figures.kind, status: 'ok', latencyMs: figures.latencyMs, message: null },
  };
}
