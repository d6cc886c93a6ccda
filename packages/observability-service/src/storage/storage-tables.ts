import type { Generated } from 'kysely';
import type { IngestionCounterTables } from './ingestion-counter-tables.js';

/**
 * The ingestion storage contract: tables written by ingestion (src/ingest, src/otlp) and read
 * by the query features. Timestamps and minutes are epoch milliseconds; `minute` is the start of
 * the UTC minute an occurrence started in. Raw rows serve lists and traces; every aggregate
 * (summary, trend, database, dependencies, usage) reads the rollups, which ingestion writes in
 * the same transaction as the raw rows, so the two always agree.
 */

/** One executed operation (an OpenTelemetry span), as received. */
export interface OccurrencesTable {
  /** Server-assigned, ascending in insertion order; the public occurrence id (as a string). */
  id: Generated<number>;
  /** The sender's own `id` for the occurrence, when it gave one (not unique). */
  client_id: string | null;
  /** 32 lowercase hex characters. */
  trace_id: string;
  /** 16 lowercase hex characters. */
  span_id: string;
  parent_span_id: string | null;
  /** From the envelope's resource. */
  service: string;
  environment: string;
  service_version: string | null;
  instance: string | null;
  operation: string;
  /** `server` | `client` | `internal` | `producer` | `consumer`. */
  kind: string;
  started_at: number;
  duration_ms: number;
  /** `ok` | `error`. */
  status: string;
  tenant_id: string | null;
  http_method: string | null;
  http_route: string | null;
  http_status_code: number | null;
  db_system: string | null;
  /** The statement as sent (bounded). */
  db_statement: string | null;
  /** `statement_rollups.statement_hash` of the normalized statement, when `db_statement` is set. */
  db_statement_hash: string | null;
  db_operation: string | null;
  peer_service: string | null;
  peer_address: string | null;
  error_type: string | null;
  error_message: string | null;
  error_stack: string | null;
  /** The error group (errors/error-fingerprint.ts) of an occurrence with status `error` and error details; else null. */
  error_group_id: string | null;
  /** JSON object of string -> string | number | boolean, or null. */
  attributes: string | null;
  /**
   * JSON object of the resource's attributes other than service, environment, version and
   * instance (OTLP; null for protocol v1), same value types as `attributes`.
   */
  resource_attributes: string | null;
  /** JSON array of span events, `{"name","timeMs","attributes"?}` (epoch ms, fractions allowed), or null. */
  events: string | null;
  /** JSON array of span links, `{"traceId","spanId","traceState"?,"attributes"?}`, or null. */
  links: string | null;
  /** When the service committed it. */
  received_at: number;
}

/**
 * A row to store, plus the normalized statement its database rollup is keyed by, and when it was
 * received when that was earlier than its write (the copy command keeps the source store's time;
 * ingestion leaves it out: the commit's time).
 */
export type NewOccurrence = Omit<OccurrencesTable, 'id' | 'received_at' | 'error_group_id'> & { normalized_statement: string | null; received_at?: number };

/**
 * A stored occurrence as the copy command reads it (storage/telemetry-export.ts): its columns as
 * written, and when it was received; the normalized statement is derived again when it is written.
 */
export type ExportedOccurrence = Omit<NewOccurrence, 'normalized_statement' | 'received_at'> & { received_at: number };

/** Columns every rollup row carries besides its key. */
export interface RollupFigures {
  /** Epoch ms of the minute start; with the key columns, the primary key. */
  minute: number;
  count: number;
  /** Occurrences with status `error`. */
  error_count: number;
  duration_sum_ms: number;
  duration_max_ms: number;
  /** Sparse latency histogram; decode with `LatencyHistogram.decode` (storage/latency-histogram.ts). */
  histogram: string;
}

/** Per minute x service x environment x operation x kind x span role. */
export interface OperationRollupsTable extends RollupFigures {
  service: string;
  environment: string;
  operation: string;
  kind: string;
  /** `entry` | `root` | `child` (storage/span-role.ts): which spans a service's figures count. */
  span_role: string;
  /** The latency histogram of the error occurrences alone (Apdex counts errors as frustrated). */
  error_histogram: string;
}

/** Per minute x tenant x service x environment (occurrences that carry a tenantId). */
export interface TenantRollupsTable extends RollupFigures {
  tenant_id: string;
  service: string;
  environment: string;
}

/** Per minute x service x environment x database system x query shape. */
export interface StatementRollupsTable extends RollupFigures {
  service: string;
  environment: string;
  db_system: string;
  /** 16 hex characters of the SHA-256 of `statement`. */
  statement_hash: string;
  /** The normalized statement: literals replaced by `?` (see ingest/statement-normalizer.ts). */
  statement: string;
  /** `db.operation` as sent, else the statement's first keyword upper-cased; may be null. */
  db_operation: string | null;
}

/**
 * Per minute x environment x caller service x callee. Edges come from client/producer
 * occurrences with `peer` (target = peer.service, else peer.address), from client occurrences
 * with `db` and no peer (target = db.system), and from parent/child occurrences of the same
 * trace in different services whose parent has no `peer` (figures are the child's).
 */
export interface DependencyRollupsTable extends RollupFigures {
  environment: string;
  source_service: string;
  target: string;
  /** `service` (a peer service or a cross-service child), `address` (peer.address only) or `database`. */
  target_kind: string;
}

/** A row of one of the rollup tiers (query/rollup-tiers.ts): a rollup summed over `tier_ms` from `bucket`. */
interface TierFigures {
  tier_ms: number;
  bucket: number;
  /** Which cube columns hold "all" (bit i: cube column i). */
  grain: number;
  count: number;
  error_count: number;
  duration_sum_ms: number;
  duration_max_ms: number;
}

/** The tiers the compactor maintains (migrations 2026-11-21-03 and -04, 20261204200000). */
export interface TierTables {
  service_tiers: TierFigures & { service: string; environment: string; span_role: string; histogram: string; error_histogram: string };
  /** Keyed by `operation_keys.id`: an integer groups and compares faster than five text columns, and a row is narrower. */
  operation_tiers: TierFigures & { operation_key: number; histogram: string; error_histogram: string };
  /**
   * The operation tiers' key dictionary: one row per distinct key of the operation rollups the
   * compactor has folded in, never rewritten, so an id means the same key for as long as it exists.
   */
  operation_keys: { id: Generated<number>; service: string; environment: string; operation: string; kind: string; span_role: string };
  tenant_tiers: TierFigures & { tenant_id: string; service: string; environment: string };
  statement_tiers: TierFigures & { service: string; environment: string; db_system: string; statement_hash: string; statement: string; db_operation: string | null; histogram: string };
  dependency_tiers: TierFigures & { environment: string; source_service: string; target: string; target_kind: string; histogram: string };
  /** The compactor's watermark (`occurrence-id`: the last occurrence the tiers include). */
  rollup_tier_state: { name: string; value: number };
}

/**
 * The tables of this layer, for `Kysely<TelemetryDatabase>`: occurrences and their rollups,
 * tiers, and the health counters. The features that keep tables beside them in the same database
 * declare theirs (errors/error-group-tables.ts, logs/log-tables.ts) over this; the SQL telemetry
 * store sees all of them (telemetry/sql-telemetry-database.ts). Users, sessions, keys and
 * settings are not telemetry.
 */
export interface TelemetryDatabase extends IngestionCounterTables, TierTables {
  occurrences: OccurrencesTable;
  operation_rollups: OperationRollupsTable;
  tenant_rollups: TenantRollupsTable;
  statement_rollups: StatementRollupsTable;
  dependency_rollups: DependencyRollupsTable;
}
