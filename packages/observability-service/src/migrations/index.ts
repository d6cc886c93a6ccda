import { accountsTablesMigration, type ServiceMigration } from '@playstack/server-kit';
import { usersSessionsKeys } from './2026-11-21-01-users-sessions-keys.js';
import { occurrencesAndRollups } from './2026-11-21-02-occurrences-and-rollups.js';
import { ingestionMinutes } from './2026-11-21-03-ingestion-minutes.js';
import { rollupTiers } from './2026-11-21-03-rollup-tiers.js';
import { rollupTierGrains } from './2026-11-21-03-rollup-tiers-grain.js';
import { operationTiers } from './2026-11-21-04-operation-tiers.js';
import { spanEventsLinks } from './2026-11-21-05-span-events-links.js';
import { logs } from './2026-11-26-01-logs.js';
import { statementShapes } from './2026-11-27-01-statement-shapes.js';
import { entrySpansApdex } from './2026-11-27-02-entry-spans-apdex.js';
import { spanIdIndex } from './2026-11-29-01-span-id-index.js';
import { errorGroups } from './2026-11-30-01-error-groups.js';
import { serviceStartedAtIndex } from './2026-12-01-01-service-started-at-index.js';
import { accountsFromUsers } from './20261127070900-accounts-from-users.js';
import { errorGroupDays } from './20261127071000-error-group-days.js';
import { alerts } from './20261127110000-alerts.js';
import { errorGroupStatusChanges } from './20261127141500-error-group-status-changes.js';
import { logsTextIndexColumnsize } from './20261127183000-logs-text-index-columnsize.js';
import { sixHourTier } from './20261203160000-six-hour-tier.js';
import { dependencyFiveMinuteTier } from './20261207193000-dependency-five-minute-tier.js';
import { operationKeys } from './20261204200000-operation-keys.js';
import { logsTraceDirectory } from './20261207020000-logs-trace-directory.js';
import { occurrencesTimeCoveringIndex } from './20261207130000-occurrences-time-covering-index.js';

/**
 * The observability service's migrations, applied in name order. A new one is named
 * `<YYYYMMDDHHMMSS>-<what>` (UTC, when written) and appended; the dated `YYYY-MM-DD-NN-what`
 * names are frozen, like every released migration: fix forward with a new one.
 * `test/migration-order.test.ts` enforces the rule (docs/development.md, Conventions).
 */
export const observabilityMigrations: Readonly<Record<string, ServiceMigration>> = {
  '2026-11-21-01-users-sessions-keys': usersSessionsKeys,
  '2026-11-21-02-occurrences-and-rollups': occurrencesAndRollups,
  '2026-11-21-03-ingestion-minutes': ingestionMinutes,
  '2026-11-21-03-rollup-tiers': rollupTiers,
  '2026-11-21-03-rollup-tiers-grain': rollupTierGrains,
  '2026-11-21-04-operation-tiers': operationTiers,
  '2026-11-21-05-span-events-links': spanEventsLinks,
  '2026-11-26-01-logs': logs,
  '2026-11-27-01-statement-shapes': statementShapes,
  '2026-11-27-02-entry-spans-apdex': entrySpansApdex,
  '2026-11-29-01-span-id-index': spanIdIndex,
  '2026-11-30-01-error-groups': errorGroups,
  '2026-12-01-01-service-started-at-index': serviceStartedAtIndex,
  '20261127070800-accounts': accountsTablesMigration,
  '20261127070900-accounts-from-users': accountsFromUsers,
  '20261127071000-error-group-days': errorGroupDays,
  '20261127110000-alerts': alerts,
  '20261127141500-error-group-status-changes': errorGroupStatusChanges,
  '20261127183000-logs-text-index-columnsize': logsTextIndexColumnsize,
  '20261203160000-six-hour-tier': sixHourTier,
  '20261204200000-operation-keys': operationKeys,
  '20261207020000-logs-trace-directory': logsTraceDirectory,
  '20261207130000-occurrences-time-covering-index': occurrencesTimeCoveringIndex,
  '20261207193000-dependency-five-minute-tier': dependencyFiveMinuteTier,
};
