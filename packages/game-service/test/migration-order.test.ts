import { describeMigrationOrder } from '@playstack/server-kit/testing';
import { gameMigrations } from '../src/migrations/index.js';

/**
 * Released before the timestamp rule: frozen, never renamed or moved. This list never grows; new
 * migrations are named `<YYYYMMDDHHMMSS>-<what>`.
 */
const frozenNames = [
  '2026-11-21-01-identity',
  '2026-11-21-02-leaderboard-entries',
  '2026-11-21-03-runs',
  '2026-11-21-04-admin-accounts',
  '2026-11-25-01-bounded-display-names',
  '2026-11-25-02-refresh-successors',
  '2026-11-25-03-manifest-changes',
];

describeMigrationOrder(gameMigrations, frozenNames, new URL('../src/migrations/', import.meta.url));
