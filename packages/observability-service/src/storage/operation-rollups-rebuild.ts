import { addOperation } from './occurrence-rollups.js';
import { RollupAccumulator, rollupSpecs } from './rollup-accumulator.js';
import type { RebuildPart } from './rollup-rebuild.js';
import { telemetryTables } from './telemetry-database.js';

/** The operation rollups recomputed from the stored occurrences, each with its span role and error latencies. */
export const operationRollupsRebuild: RebuildPart = {
  name: 'operation-rollups',
  feedsTiers: true,
  async clear(trx) {
    await telemetryTables(trx).deleteFrom('operation_rollups').execute();
  },
  async addChunk(trx, rows) {
    const operations = new RollupAccumulator(rollupSpecs.operation);
    for (const row of rows) addOperation(operations, { ...row, started_at: Number(row.started_at) });
    await operations.mergeInto(telemetryTables(trx));
  },
};
