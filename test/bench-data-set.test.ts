// The benchmarks' bulk loader (bench/support/occurrence-data-set.ts `seedSqlite`) stores what
// ingestion stores: a small data set bulk-loaded into one database and the same rows written
// through the service's telemetry store (the real ingest path: group commit, the parent/child
// edge search, rollup merges per transaction) into another leave the same rows in every table
// ingestion writes. If the loader drifts from ingestion, this fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ManualClock, SqliteDatabase } from '@playstack/server-kit';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';
import { dataSetBatches, end, seedSqlite, type DataSetShape } from '../bench/support/occurrence-data-set.js';

const shape: DataSetShape = { occurrences: 6_000, days: 0.05, services: 6, tenants: 7, operationsPerService: 12, errorKindsPerService: 4, end, seed: 7 };

/** Every table ingestion writes (occurrences, the four rollups, error groups and their counts, the ingestion counters). */
const ingestedTables = [
  'occurrences',
  'operation_rollups',
  'tenant_rollups',
  'statement_rollups',
  'dependency_rollups',
  'error_groups',
  'error_group_hours',
  'error_group_days',
  'ingestion_minutes',
];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tableRows(dataDir: string): Record<string, unknown[]> {
  const file = new SqliteDatabase(join(dataDir, 'observability.sqlite'), { readonly: true });
  try {
    return Object.fromEntries(
      ingestedTables.map((table) => {
        const columns = (file.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((column) => `"${column.name}"`);
        return [table, file.prepare(`select ${columns.join(', ')} from "${table}" order by ${columns.join(', ')}`).all()];
      }),
    );
  } finally {
    file.close();
  }
}

it('bulk-loads exactly what ingesting the same rows through the telemetry store stores', async () => {
  const seeded = mkdtempSync(join(tmpdir(), 'data-set-seeded-'));
  const ingested = mkdtempSync(join(tmpdir(), 'data-set-ingested-'));
  dirs.push(seeded, ingested);
  await seedSqlite(seeded, shape, true);

  const app = await buildApp(loadObservabilityConfig({ LOG_LEVEL: 'silent', DATA_DIR: ingested, ROLLUP_TIER_INTERVAL_SECONDS: '3600' }), { clock: new ManualClock(end) });
  try {
    // Requests of a few hundred spans each, as exporters send them; each write is one commit.
    for (const batch of dataSetBatches(shape, 1)) {
      for (let offset = 0; offset < batch.length; offset += 250) await app.telemetry.write(batch.slice(offset, offset + 250));
    }
  } finally {
    await app.close();
  }

  const expected = tableRows(ingested);
  const actual = tableRows(seeded);
  expect(expected.occurrences!.length).toBeGreaterThanOrEqual(shape.occurrences);
  expect(expected.error_groups!.length).toBeGreaterThan(shape.services);
  expect(expected.operation_rollups!.length).toBeGreaterThan(100);
  for (const table of ingestedTables) expect({ table, rows: actual[table] }).toEqual({ table, rows: expected[table] });
}, 120_000);

it('hands the rows over in the order live ingestion stores them: each service\'s 5-second slice together, not start order', () => {
  const rows = [...dataSetBatches(shape, 1)].flat();
  const slice = (row: { started_at: number }) => Math.floor(row.started_at / 5_000);
  let outOfStartOrder = 0;
  const seenRuns = new Set<string>();
  for (let index = 1; index < rows.length; index += 1) {
    const previous = rows[index - 1]!;
    const row = rows[index]!;
    expect(slice(row)).toBeGreaterThanOrEqual(slice(previous));
    if (row.started_at < previous.started_at) outOfStartOrder += 1;
    // A service's rows of a slice form one run: once another service's run began, it never comes back.
    const run = `${slice(row)} ${row.service}`;
    if (run !== `${slice(previous)} ${previous.service}`) {
      expect(seenRuns.has(run), run).toBe(false);
      seenRuns.add(`${slice(previous)} ${previous.service}`);
    }
  }
  expect(outOfStartOrder).toBeGreaterThan(rows.length / 10);
});
