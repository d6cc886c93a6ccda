import type { ObservabilityDatabase } from './database.js';
import { errorGroupsRebuild } from './errors/error-groups-rebuild.js';
import { statementRollupsRebuild } from './ingest/statement-rollups-rebuild.js';
import { operationRollupsRebuild } from './storage/operation-rollups-rebuild.js';
import type { RebuildPart } from './storage/rollup-rebuild.js';

/**
 * What a migration may ask to be derived again from the stored occurrences (storage/rollup-rebuild.ts),
 * each part over its own tables: run before the service ingests or serves (app.ts), and by the
 * telemetry copy command on a SQL target it has just migrated.
 */
export const rollupRebuildParts: readonly RebuildPart<ObservabilityDatabase>[] = [statementRollupsRebuild, operationRollupsRebuild, errorGroupsRebuild];
