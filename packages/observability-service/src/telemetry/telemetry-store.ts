import type { ErrorGroups } from '../errors/error-groups.js';
import type { LogStore, NewLogRecord } from '../logs/index.js';
import type { IndexedFilters, OccurrenceListOptions, RowFilters, SearchBound } from '../query/occurrences-view.js';
import type { OperationsOptions } from '../query/operations-view.js';
import type { TelemetryRead } from '../query/read-query.js';
import type {
  DatabaseResponse,
  DependenciesResponse,
  LookupResponse,
  Occurrence,
  OccurrenceDurationsResponse,
  OccurrencesResponse,
  OperationsResponse,
  ServicesResponse,
  SummaryResponse,
  TrendResponse,
} from '../query/query-schemas.js';
import type { TraceView } from '../query/trace-view.js';
import type { TrendInterval } from '../query/trend-interval.js';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import type { ExportedOccurrence, NewOccurrence } from '../storage/storage-tables.js';
import type { ExportBatches, ExportRequest } from '../storage/telemetry-export.js';
import type { UsageExportRow, UsageResponse, UsageTrendResponse } from '../usage/usage-schemas.js';

/** Where ingestion hands its batches: resolves only once the store has them durably. */
export interface TelemetryWriter {
  /**
   * Stores occurrences and log records and counts them, and `refused` items of the same request,
   * for the health view; resolves once they are durable (the acknowledgement waits for it).
   */
  write(rows: readonly NewOccurrence[], refused?: number, logs?: readonly NewLogRecord[]): Promise<void>;
}

/** One stored batch, for metrics. */
export interface CommitReport {
  envelopes: number;
  rows: number;
  logs: number;
  durationMs: number;
}

/** What one pruning pass removed. */
export interface PruneCounts {
  occurrences: number;
  rollupRows: number;
  logRecords: number;
}

/** Which store holds the telemetry: the service database (`sqlite`, `postgres`) or ClickHouse. */
export type TelemetryStoreKind = 'sqlite' | 'postgres' | 'clickhouse';

/** The store's own figures for the health view. */
export interface TelemetryHealthFigures {
  kind: TelemetryStoreKind;
  /** One round trip, in ms. */
  latencyMs: number;
  lastReceivedAtMs: number | null;
  oldestStartedAtMs: number | null;
  /** Items accepted over the 15 whole minutes before the current one. */
  acceptedLast15Minutes: number;
  acceptedLast24h: number;
  refusedLast24h: number;
  sizeBytes: number;
  rows: { occurrences: number; operationRollups: number; tenantRollups: number; statementRollups: number; dependencyRollups: number };
}

/** The health figures, or why the store did not answer. */
export type TelemetryHealth = TelemetryHealthFigures | { kind: TelemetryStoreKind; unreachable: string };

/** Result of a maintenance pass (the SQL store's rollup tiers). */
export interface MaintenanceResult {
  /** The last occurrence folded in. */
  throughId: number;
  minutes: number;
}

/**
 * Where telemetry (occurrences, their rollups and error groups, log records, ingestion counts)
 * is written, read, pruned and measured: the one interface the rest of the service uses, so the
 * SQL store over the service database (SQLite or PostgreSQL) and a columnar store can take each
 * other's place. Users, sessions, keys and settings are not telemetry and stay in SQL.
 */
export interface TelemetryStore extends TelemetryWriter, ErrorGroups {
  /** Resolves when every write queued so far has settled. */
  idle(): Promise<void>;
  /** Calls `listener` after each stored batch. */
  onCommit(listener: (commit: CommitReport) => void): void;
  /** The log records' store (search, trend, trace logs, tenant counts). */
  readonly logs: LogStore;

  services(read: TelemetryRead, thresholds: ApdexThresholds): Promise<ServicesResponse>;
  summary(read: TelemetryRead, thresholds: ApdexThresholds): Promise<SummaryResponse>;
  trend(read: TelemetryRead, thresholds: ApdexThresholds, interval?: TrendInterval): Promise<TrendResponse>;
  operations(read: TelemetryRead, thresholds: ApdexThresholds, options: OperationsOptions): Promise<OperationsResponse>;
  occurrences(read: TelemetryRead, options: OccurrenceListOptions): Promise<OccurrencesResponse>;
  occurrenceDurations(read: TelemetryRead, options: IndexedFilters & Omit<RowFilters, 'minDurationMs' | 'maxDurationMs'> & SearchBound): Promise<OccurrenceDurationsResponse>;
  occurrence(id: string): Promise<Occurrence>;
  lookup(id: string): Promise<LookupResponse>;
  trace(traceId: string): Promise<TraceView>;
  database(read: TelemetryRead, limit: number): Promise<DatabaseResponse>;
  dependencies(read: TelemetryRead): Promise<DependenciesResponse>;

  usage(read: TelemetryRead, tenantId: string | undefined): Promise<UsageResponse>;
  usageTrend(read: TelemetryRead, tenantId: string | undefined, interval?: TrendInterval): Promise<UsageTrendResponse>;
  usageExport(read: TelemetryRead, tenantId: string | undefined, interval: TrendInterval): AsyncIterable<UsageExportRow[]>;

  /**
   * The stored occurrences of a time range in the store's order (start, then the store's own
   * key), in batches of at most `request.batchRows`: what the copy command reads
   * (telemetry-copy/). Memory stays bounded whatever the store holds.
   */
  exportOccurrences(request: ExportRequest): ExportBatches<ExportedOccurrence>;

  /** The store's figures for the health view at `nowMs`, or why it did not answer. */
  health(nowMs: number): Promise<TelemetryHealth>;
  /** Deletes everything older than `cutoffMs`, in steps of at most `batchRows` raw rows, until done or `stopped()`. */
  prune(cutoffMs: number, batchRows: number, stopped: () => boolean): Promise<PruneCounts>;
  /** Background upkeep (the SQL store folds new rollups into its tiers); safe to run concurrently from several instances. */
  maintain(): Promise<MaintenanceResult>;
}
