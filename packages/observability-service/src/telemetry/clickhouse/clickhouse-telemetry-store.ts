import type { Clock } from '@playstack/server-kit';
import type { NewLogRecord } from '../../logs/index.js';
import { databaseView } from '../../query/database-view.js';
import type { TelemetryRead } from '../../query/read-query.js';
import { servicesView } from '../../query/services-view.js';
import { summaryView } from '../../query/summary-view.js';
import { operationsView } from '../../query/operations-view.js';
import { trendView } from '../../query/trend-view.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { usageExportBatches, usageTrendView, usageView } from '../../usage/usage-views.js';
import type { CommitReport, TelemetryStore } from '../telemetry-store.js';
import { clickHouseDependencies } from './clickhouse-dependencies.js';
import { resolveClickHouseDependencies } from './clickhouse-dependency-resolver.js';
import { clickHouseErrorGroup, clickHouseErrorGroups, setClickHouseErrorGroupStatus } from './clickhouse-error-groups.js';
import { exportClickHouseOccurrences, exportClickHouseStatusChanges } from './clickhouse-export.js';
import { clickHouseHealthFigures } from './clickhouse-health.js';
import { clickHouseLookup, clickHouseOccurrenceById, clickHouseOccurrenceDurations, clickHouseOccurrences } from './clickhouse-occurrences.js';
import { ClickHouseLogStore } from './clickhouse-log-store.js';
import { ClickHouseTelemetry } from './clickhouse-telemetry.js';

export interface ClickHouseTelemetryStoreOptions {
  /** `http://host:8123` (CLICKHOUSE_URL). */
  url: string;
  /** The database holding the telemetry tables (CLICKHOUSE_DATABASE). */
  database: string;
  clock: Clock;
  maxRowsPerInsert: number;
  /** False: writes are not counted for the health view (the copy command's). Default true. */
  countsIngestion?: boolean;
  /** The cluster telemetry is sharded over (CLICKHOUSE_CLUSTER; clickhouse-cluster.ts). Unset: one server. */
  cluster?: string | undefined;
}

/**
 * Telemetry in ClickHouse (CLICKHOUSE_URL): occurrences, their rollups and error groups, and log
 * records (clickhouse-log-store.ts), with every read view the API serves.
 */
export class ClickHouseTelemetryStore implements TelemetryStore {
  readonly logs: ClickHouseLogStore;
  readonly clickHouse: ClickHouseTelemetry;

  readonly #clock: Clock;

  constructor(options: ClickHouseTelemetryStoreOptions) {
    this.#clock = options.clock;
    this.clickHouse = new ClickHouseTelemetry(options);
    this.logs = new ClickHouseLogStore(this.clickHouse);
  }

  /** Creates or upgrades the ClickHouse schema; returns the versions applied now. */
  migrate(): Promise<string[]> {
    return this.clickHouse.migrate();
  }

  write(rows: readonly NewOccurrence[], refused = 0, logs: readonly NewLogRecord[] = []): Promise<void> {
    return this.clickHouse.write(rows, refused, logs);
  }

  idle(): Promise<void> {
    return this.clickHouse.idle();
  }

  onCommit(listener: (commit: CommitReport) => void): void {
    this.clickHouse.onCommit(listener);
  }

  #figures(read: TelemetryRead) {
    return { ...read, rollups: this.clickHouse.rollups };
  }

  services: TelemetryStore['services'] = (read, thresholds) => servicesView({ ...this.#figures(read), lastSeen: this.clickHouse.lastSeen }, thresholds);
  summary: TelemetryStore['summary'] = (read, thresholds) => summaryView(this.#figures(read), thresholds);
  trend: TelemetryStore['trend'] = (read, thresholds, interval) => trendView(this.#figures(read), thresholds, interval);
  operations: TelemetryStore['operations'] = (read, thresholds, options) => operationsView(this.#figures(read), thresholds, options);
  occurrences: TelemetryStore['occurrences'] = (read, options) => clickHouseOccurrences(this.clickHouse, read, options);
  occurrenceDurations: TelemetryStore['occurrenceDurations'] = (read, options) => clickHouseOccurrenceDurations(this.clickHouse, read, options);
  occurrence: TelemetryStore['occurrence'] = (id) => clickHouseOccurrenceById(this.clickHouse, id);
  lookup: TelemetryStore['lookup'] = (id) => clickHouseLookup(this.clickHouse, id);
  trace: TelemetryStore['trace'] = (traceId) => this.clickHouse.trace(traceId);
  database: TelemetryStore['database'] = (read, limit) => databaseView(this.#figures(read), limit);
  dependencies: TelemetryStore['dependencies'] = (read) => clickHouseDependencies(this.clickHouse, read);

  usage: TelemetryStore['usage'] = (read, tenantId) => usageView(this.#figures(read), this.logs, tenantId);
  usageTrend: TelemetryStore['usageTrend'] = (read, tenantId, interval) => usageTrendView(this.#figures(read), this.logs, tenantId, interval);
  usageExport: TelemetryStore['usageExport'] = (read, tenantId, interval) => usageExportBatches(this.#figures(read), this.clickHouse.rollups, this.logs, tenantId, interval);

  errorGroups: TelemetryStore['errorGroups'] = (nowMs, query) => clickHouseErrorGroups(this.clickHouse, nowMs, query);
  errorGroup: TelemetryStore['errorGroup'] = (nowMs, groupId, query) => clickHouseErrorGroup(this.clickHouse, nowMs, groupId, query);
  setErrorGroupStatus: TelemetryStore['setErrorGroupStatus'] = (groupId, status, userId, nowMs) => setClickHouseErrorGroupStatus(this.clickHouse, groupId, status, userId, nowMs);

  exportErrorGroupStatusChanges: TelemetryStore['exportErrorGroupStatusChanges'] = (request) => exportClickHouseStatusChanges(this.clickHouse, request);
  exportOccurrences: TelemetryStore['exportOccurrences'] = (request) => exportClickHouseOccurrences(this.clickHouse, request);

  health: TelemetryStore['health'] = (nowMs) => clickHouseHealthFigures(this.clickHouse, nowMs);

  /** Drops the day partitions past the cutoff (whole UTC days: clickhouse-telemetry.ts), the occurrences' and the log records'. */
  prune: TelemetryStore['prune'] = async (cutoffMs, _batchRows, stopped) => {
    const occurrences = await this.clickHouse.prune(cutoffMs);
    const logRecords = stopped() ? 0 : await this.logs.prune(cutoffMs);
    return { occurrences, rollupRows: 0, logRecords };
  };

  /**
   * Resolves the dependency edges of the minutes that settled (clickhouse-dependency-resolver.ts);
   * the rollups' states need nothing: ClickHouse merges them in the background.
   */
  maintain: TelemetryStore['maintain'] = async () => ({ throughId: 0, minutes: (await resolveClickHouseDependencies(this.clickHouse, this.#clock.now())).minutes });

  async close(): Promise<void> {
    await this.clickHouse.close();
  }
}
