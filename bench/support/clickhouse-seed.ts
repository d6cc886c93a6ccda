// Seeds the ClickHouse store's tables inside ClickHouse: one INSERT ... SELECT over numbers(), so
// a hundred million spans take minutes rather than hours of client inserts. The spans go through
// the same materialized views as ingested ones (rollups, trace index). Shape: traces of 4 spans
// (a server span and three children: an internal step, a database call, an outgoing call) over 20
// services, 50 routes and 50 tenants, spread evenly over [fromMs, toMs), every 37th trace failing
// (its server span an error of one of 40 groups), durations 2 ms to about 800 ms skewed towards fast.
import type { ClickHouseClient } from '@clickhouse/client';
import { occurrenceInsertColumns } from '../../packages/observability-service/src/telemetry/clickhouse/clickhouse-occurrence-rows.js';
import { histogramRelativeError, maxTrackedMs, minTrackedMs } from '../../packages/observability-service/src/storage/latency-histogram.js';

/** The histogram's bucket growth factor (storage/latency-histogram.ts). */
const gamma = (1 + histogramRelativeError) / (1 - histogramRelativeError);

/** Spans per INSERT ... SELECT: each is one statement ClickHouse runs in blocks. */
const spansPerStatement = 10_000_000;

/** The trace id of the `trace`-th seeded trace (32 hex digits), for trace-by-id reads. */
export function seededTraceIdSql(trace: string): string {
  return `lower(concat(hex(cityHash64(${trace})), hex(cityHash64(${trace} + 1))))`;
}

function seedStatement(database: string, fromMs: number, toMs: number, first: number, count: number, total: number): string {
  const values = [
    'toDate(intDiv(t, 1000)) AS day',
    "concat(lower(hex(t)), '-', lower(hex(cityHash64(n)))) AS id",
    'NULL AS client_id',
    `${seededTraceIdSql('tr')} AS trace_id`,
    'lower(hex(cityHash64(n, 7))) AS span_id',
    // A child's parent is its trace's server span (span n = 4 tr).
    'if(r = 0, NULL, lower(hex(cityHash64(toUInt64(tr * 4), 7)))) AS parent_span_id',
    "concat('service-', toString(intDiv(tr, 3) % 20)) AS service",
    "'production' AS environment",
    "'1.0.0' AS service_version",
    'NULL AS instance',
    "multiIf(r = 0, concat('GET /route-', toString(tr % 50)), r = 1, 'load player', r = 2, 'SELECT players', 'POST /rank') AS operation",
    "multiIf(r = 0, 'server', r = 1, 'internal', 'client') AS kind",
    "if(r = 0, 'entry', 'child') AS span_role",
    'toFloat64(t) AS started_at',
    'd AS duration_ms',
    `toUInt16(if(d <= ${minTrackedMs}, 0, greatest(1, ceil(log(least(d, ${maxTrackedMs}) / ${minTrackedMs}) / log(${gamma}) - 1e-9)))) AS latency_bucket`,
    "if(failed, 'error', 'ok') AS status",
    'toUInt8(failed) AS is_error',
    'toUInt8(r = 0) AS has_tenant',
    'toUInt8(r = 2) AS has_statement',
    "if(r = 0, concat('tenant-', toString(tr % 50)), NULL) AS tenant_id",
    "if(r = 0, 'GET', NULL) AS http_method",
    "if(r = 0, concat('/route-', toString(tr % 50)), NULL) AS http_route",
    'if(r = 0, toUInt16(if(failed, 500, 200)), NULL) AS http_status_code',
    "if(r = 2, 'postgresql', NULL) AS db_system",
    "if(r = 2, 'SELECT * FROM players WHERE id = ?', NULL) AS db_statement",
    "if(r = 2, concat('statement-', toString(tr % 30)), NULL) AS db_statement_hash",
    "if(r = 2, concat('SELECT * FROM players_', toString(tr % 30), ' WHERE id = ?'), NULL) AS normalized_statement",
    "if(r = 2, 'SELECT', NULL) AS db_operation",
    "if(r = 3, 'rank-engine', NULL) AS peer_service",
    'NULL AS peer_address',
    "if(failed, 'TimeoutError', NULL) AS error_type",
    "if(failed, concat('rank engine timed out on shard ', toString(tr % 40)), NULL) AS error_message",
    'NULL AS error_stack',
    'if(failed, lower(hex(cityHash64(tr % 40))), NULL) AS error_group_id',
    ...['attributes', 'resource_attributes', 'events', 'links'].map((column) => `NULL AS ${column}`),
    'toUInt64(t) AS received_at',
  ];
  if (values.length !== occurrenceInsertColumns.length) throw new Error('the seed statement does not give every column');
  return `INSERT INTO ${database}.occurrences (${occurrenceInsertColumns.join(', ')})
    SELECT ${values.join(', ')}
    FROM (SELECT number + ${first} AS n, intDiv(n, 4) AS tr, n % 4 AS r, (tr % 37 = 0 AND r = 0) AS failed,
      toUInt64(${fromMs} + intDiv(n * ${toMs - fromMs}, ${total})) AS t, 1 + exp((rand(n) % 1000) / 150.0) AS d
      FROM system.numbers LIMIT ${count})`;
}

/** Inserts `total` spans spread over [fromMs, toMs), in statements of `spansPerStatement`; reports progress. */
export async function seedClickHouse(client: ClickHouseClient, database: string, fromMs: number, toMs: number, total: number, progress: (seeded: number) => void): Promise<void> {
  for (let first = 0; first < total; first += spansPerStatement) {
    const count = Math.min(spansPerStatement, total - first);
    await client.command({ query: seedStatement(database, fromMs, toMs, first, count, total), clickhouse_settings: { wait_end_of_query: 1 } });
    progress(first + count);
  }
}
