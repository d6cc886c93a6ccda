import { accountsTablesMigration, type ServiceMigration } from '@playstack/server-kit';
import { identityMigration } from './2026-11-21-01-identity.js';
import { leaderboardEntriesMigration } from './2026-11-21-02-leaderboard-entries.js';
import { runs } from './2026-11-21-03-runs.js';
import { adminAccountsMigration } from './2026-11-21-04-admin-accounts.js';
import { boundedDisplayNamesMigration } from './2026-11-25-01-bounded-display-names.js';
import { refreshSuccessorsMigration } from './2026-11-25-02-refresh-successors.js';
import { manifestChangesMigration } from './2026-11-25-03-manifest-changes.js';
import { accountsFromAdminUsers } from './20261127072000-accounts-from-admin-users.js';
import { moderationMigration } from './20261127143000-moderation.js';
import { runsByTimeMigration } from './20261127211500-runs-by-time.js';
import { entrySubscoresAndMetadataMigration } from './20261127215000-entry-subscores-and-metadata.js';

/**
 * The game service's migrations, applied in name order. A new one is named
 * `<YYYYMMDDHHMMSS>-<what>` (UTC, when written) and appended; the dated `YYYY-MM-DD-NN-what`
 * names are frozen, like every released migration: fix forward with a new one.
 * `test/migration-order.test.ts` enforces the rule (docs/development.md, Conventions).
 */
export const gameMigrations: Readonly<Record<string, ServiceMigration>> = {
  '2026-11-21-01-identity': identityMigration,
  '2026-11-21-02-leaderboard-entries': leaderboardEntriesMigration,
  '2026-11-21-03-runs': runs,
  '2026-11-21-04-admin-accounts': adminAccountsMigration,
  '2026-11-25-01-bounded-display-names': boundedDisplayNamesMigration,
  '2026-11-25-02-refresh-successors': refreshSuccessorsMigration,
  '2026-11-25-03-manifest-changes': manifestChangesMigration,
  '20261127070800-accounts': accountsTablesMigration,
  '20261127072000-accounts-from-admin-users': accountsFromAdminUsers,
  '20261127143000-moderation': moderationMigration,
  '20261127211500-runs-by-time': runsByTimeMigration,
  '20261127215000-entry-subscores-and-metadata': entrySubscoresAndMetadataMigration,
};
