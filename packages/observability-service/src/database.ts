import type { Kysely, Transaction } from 'kysely';
import type { AccountsTables, ServiceApp } from '@playstack/server-kit';
import type { AlertTables } from './alerts/alert-tables.js';
import type { KeysTables } from './keys/keys-tables.js';
import type { SettingsTables } from './retention/settings-tables.js';
import type { ServiceSettingsTables } from './service-settings/service-settings-tables.js';
import type { ErrorGroupTables } from './errors/error-group-tables.js';
import type { LogTables } from './logs/index.js';
import type { TelemetryDatabase } from './storage/storage-tables.js';

/**
 * The observability service's database: every table, as its migrations leave them
 * (src/migrations/), each declared beside the feature that owns it (the telemetry tables by the
 * telemetry store); and the kit's accounts tables (users, sessions, invitations). Timestamps are
 * epoch milliseconds, read as numbers.
 */
export interface ObservabilityDatabase
  extends AccountsTables,
    TelemetryDatabase,
    ErrorGroupTables,
    LogTables,
    AlertTables,
    KeysTables,
    ServiceSettingsTables,
    SettingsTables {}

/** The observability service's Kysely instance. */
export type ObservabilityDb = Kysely<ObservabilityDatabase>;

/** A transaction over the observability service's database. */
export type ObservabilityTransaction = Transaction<ObservabilityDatabase>;

/** The app as this service's plugins and routes see it: `app.database` typed by its tables. */
export type ObservabilityApp = ServiceApp<ObservabilityDatabase>;
