import { describeMigrationOrder } from '@playstack/server-kit/testing';
import { observabilityMigrations } from '../src/migrations/index.js';

/**
 * Released before the timestamp rule, three of them sharing the number `-03-`: frozen, never
 * renamed or moved. This list never grows; new migrations are named `<YYYYMMDDHHMMSS>-<what>`.
 */
const frozenNames = [
  '2026-11-21-01-users-sessions-keys',
  '2026-11-21-02-occurrences-and-rollups',
  '2026-11-21-03-ingestion-minutes',
  '2026-11-21-03-rollup-tiers',
  '2026-11-21-03-rollup-tiers-grain',
  '2026-11-21-04-operation-tiers',
  '2026-11-21-05-span-events-links',
  '2026-11-26-01-logs',
  '2026-11-27-01-statement-shapes',
  '2026-11-27-02-entry-spans-apdex',
  '2026-11-29-01-span-id-index',
  '2026-11-30-01-error-groups',
  '2026-12-01-01-service-started-at-index',
];

describeMigrationOrder(observabilityMigrations, frozenNames, new URL('../src/migrations/', import.meta.url));
