import { performance } from 'node:perf_hooks';
import { dayMs, minuteMs, minuteOf } from '../../time-units.js';
import type { TelemetryHealth } from '../telemetry-store.js';
import { sentDouble } from './clickhouse-literal.js';
import type { ClickHouseTelemetry } from './clickhouse-telemetry.js';

/** The health view's rate covers this many whole minutes before the current one (as the SQL store's). */
const rateWindowMinutes = 15;

/**
 * The ClickHouse store's health figures: a round trip, the newest receipt and oldest start (each
 * read from the one day partition that can hold it), ingestion counts, bytes on disk, and rows
 * per table from the active parts (rollup rows not merged yet count separately until merged).
 */
export async function clickHouseHealthFigures(telemetry: ClickHouseTelemetry, nowMs: number): Promise<TelemetryHealth> {
  const started = performance.now();
  try {
    await telemetry.rows('SELECT 1');
  } catch (error) {
    return { kind: 'clickhouse', unreachable: error instanceof Error ? error.message : String(error) };
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  const table = `${telemetry.database}.occurrences`;
  const currentMinute = minuteOf(nowMs);
  const [[ends], recent, lastDay, storage, parts] = await Promise.all([
    telemetry.rows<{ newest: string; oldest: number; n: string }>(`
      SELECT (SELECT max(received_at) FROM ${table} WHERE day >= (SELECT max(day) FROM ${table}) - 1) AS newest,
        (SELECT min(started_at) FROM ${table} WHERE day = (SELECT min(day) FROM ${table})) AS oldest,
        (SELECT count() FROM ${table}) AS n`),
    telemetry.ingestionTotals(currentMinute - rateWindowMinutes * minuteMs, currentMinute),
    telemetry.ingestionTotals(currentMinute - dayMs, currentMinute + minuteMs),
    telemetry.storage(),
    telemetry.tableRows(),
  ]);
  const rowsOf = (name: string) => parts.get(name) ?? 0;
  const empty = Number(ends?.n ?? 0) === 0;
  return {
    kind: 'clickhouse',
    latencyMs,
    lastReceivedAtMs: empty ? null : Number(ends!.newest),
    oldestStartedAtMs: empty ? null : sentDouble(ends!.oldest, 16),
    acceptedLast15Minutes: recent.accepted,
    acceptedLast24h: lastDay.accepted,
    refusedLast24h: lastDay.refused,
    sizeBytes: storage.bytesOnDisk,
    rows: {
      occurrences: storage.occurrences,
      // The rollups as the reads use them: their tiers (every bucket size, parts not merged yet).
      operationRollups: rowsOf('operation_tiers'),
      tenantRollups: rowsOf('tenant_tiers'),
      statementRollups: rowsOf('statement_tiers'),
      // Resolved edges (clickhouse-dependency-resolver.ts), every tier and resolution not merged yet.
      dependencyRollups: rowsOf('dependency_edges'),
    },
  };
}
