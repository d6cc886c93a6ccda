import { tableView } from '@playstack/server-kit/core';
import type { TelemetryDatabase } from '../storage/storage-tables.js';

/**
 * The tables the errors feature owns. Ingestion writes them in the same transaction as the
 * occurrences (src/errors/error-group-merge.ts); `occurrences.error_group_id` links an error
 * occurrence to its group. Timestamps and hours are epoch milliseconds.
 */

/** `open` | `resolved` | `ignored` | `regressed` (resolved, then seen again). */
export type ErrorGroupStatus = 'open' | 'resolved' | 'ignored' | 'regressed';
export const errorGroupStatuses: readonly ErrorGroupStatus[] = ['open', 'regressed', 'resolved', 'ignored'];

/** One group per fingerprint (src/errors/error-fingerprint.ts). */
export interface ErrorGroupsTable {
  /** The fingerprint: 16 hexadecimal characters. */
  group_id: string;
  service: string;
  /** The fingerprint's parts; '' when the error gave none. */
  error_type: string;
  /** The normalized message (variable parts as `?`). */
  message: string;
  top_frame: string;
  /** The message of the latest occurrence, as sent (bounded). */
  example_message: string | null;
  /** Start of the first and the latest occurrence. */
  first_seen: number;
  last_seen: number;
  count: number;
  /** The latest occurrence. */
  example_trace_id: string;
  example_span_id: string;
  status: ErrorGroupStatus;
  /** The last status change by a user (null while never changed). */
  status_changed_at: number | null;
  /** The user id who made it. */
  status_changed_by: string | null;
  /** When it was last resolved: an occurrence that starts later marks it regressed. */
  resolved_at: number | null;
}

/** Occurrences per group, environment and UTC hour (the hour's start). */
export interface ErrorGroupHoursTable {
  group_id: string;
  environment: string;
  hour: number;
  count: number;
}

/** Occurrences per group, environment and UTC day (the day's start): always the sum of the day's hours. */
export interface ErrorGroupDaysTable {
  group_id: string;
  environment: string;
  day: number;
  count: number;
}

/** Occurrences per group and tenant (occurrences that carry a tenantId). */
export interface ErrorGroupTenantsTable {
  group_id: string;
  tenant_id: string;
  count: number;
  last_seen: number;
}

/** Every status a user gave a group, when and by whom: the group's status at any past moment. */
export interface ErrorGroupStatusChangesTable {
  group_id: string;
  changed_at: number;
  status: ErrorGroupStatus;
  changed_by: string | null;
}

export interface ErrorGroupTables {
  error_groups: ErrorGroupsTable;
  error_group_hours: ErrorGroupHoursTable;
  error_group_days: ErrorGroupDaysTable;
  error_group_tenants: ErrorGroupTenantsTable;
  error_group_status_changes: ErrorGroupStatusChangesTable;
}

/** The errors feature's tables beside the occurrences they group: what its SQL code reads and writes. */
export interface ErrorGroupDatabase extends TelemetryDatabase, ErrorGroupTables {}

/** The error group tables (and the occurrences) of any database that has them (the service's, an ingest transaction). */
export const errorGroupTables = tableView<ErrorGroupDatabase>();
