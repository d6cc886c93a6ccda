import { statementShapeOf } from './occurrence-mapper.js';
import { parseAttributes } from '../query/occurrence-record.js';
import { addStatement } from '../storage/occurrence-rollups.js';
import { RollupAccumulator, rollupSpecs } from '../storage/rollup-accumulator.js';
import { setOccurrenceColumn, type RebuildPart } from '../storage/rollup-rebuild.js';
import { telemetryTables } from '../storage/telemetry-database.js';

/**
 * The database rollups recomputed from the stored statements with the current normalizer, and
 * each occurrence's `db_statement_hash` brought in line with them.
 */
export const statementRollupsRebuild: RebuildPart = {
  name: 'statement-rollups',
  feedsTiers: true,
  async clear(trx) {
    await telemetryTables(trx).deleteFrom('statement_rollups').execute();
  },
  async addChunk(trx, rows) {
    const statements = new RollupAccumulator(rollupSpecs.statement);
    const rehashed = new Map<string, number[]>();
    for (const row of rows) {
      if (row.db_system === null || row.db_statement === null) continue;
      const shape = statementShapeOf(row.db_system, row.db_statement, parseAttributes(row.attributes));
      addStatement(statements, { ...row, started_at: Number(row.started_at), db_system: row.db_system }, shape);
      if (shape.hash !== row.db_statement_hash) {
        const ids = rehashed.get(shape.hash) ?? [];
        ids.push(Number(row.id));
        rehashed.set(shape.hash, ids);
      }
    }
    const tables = telemetryTables(trx);
    await statements.mergeInto(tables);
    await setOccurrenceColumn(tables, 'db_statement_hash', rehashed);
  },
};
