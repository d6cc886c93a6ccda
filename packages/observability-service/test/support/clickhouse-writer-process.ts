// A process writing to ClickHouse through the ClickHouse store until it is killed, as ingestion
// does: WRITERS concurrent writers, each writing ROWS spans and LOGS log records of a new trace
// and printing `acknowledged <trace id>` once the write resolved. clickhouse-durability.test.ts kills it.
import { randomBytes } from 'node:crypto';
import { systemClock } from '@playstack/server-kit';
import { ClickHouseTelemetry } from '../../src/telemetry/clickhouse/clickhouse-telemetry.js';
import { generateDataSet } from './generated-occurrences.js';
import { generateLogs } from './generated-logs.js';

const rows = Number(process.env.ROWS);
const writers = Number(process.env.WRITERS);
const store = new ClickHouseTelemetry({ url: process.env.CLICKHOUSE_URL!, database: process.env.CLICKHOUSE_DATABASE!, clock: systemClock, maxRowsPerInsert: 100_000 });
const template = generateDataSet(Date.now(), rows, 5).rows.slice(0, rows);
const logTemplate = generateLogs(Date.now(), Number(process.env.LOGS ?? 0)).records;

await Promise.all(
  Array.from({ length: writers }, async () => {
    for (;;) {
      const traceId = randomBytes(16).toString('hex');
      await store.write(
        template.map((row) => ({ ...row, trace_id: traceId })),
        0,
        logTemplate.map((record) => ({ ...record, trace_id: traceId })),
      );
      process.stdout.write(`acknowledged ${traceId}\n`);
    }
  }),
);
