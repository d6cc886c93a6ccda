import type { ClickHouseClient } from '@clickhouse/client';

/**
 * The ClickHouse telemetry schema, versioned like the SQL migrations: each version's statements
 * run once, in order, and the version is recorded in `schema_migrations`. Every statement is
 * idempotent (`IF NOT EXISTS`), so instances starting together may both run a version.
 *
 * Only what ClickHouse 18.16 (Debian's package, which CI runs) and current releases both
 * support: MergeTree tables partitioned by day, AggregatingMergeTree rollups fed by materialized
 * views with -State functions, no DateTime64, no table TTL, no data-skipping indexes (a trace id
 * index table instead).
 */
export interface ClickHouseMigration {
  version: string;
  /** Statements with `{db}` standing for the database name. */
  statements: readonly string[];
  /**
   * Statements run once per day partition of `occurrences` stored before the version's
   * statements ran, with `{day}` standing for the day and `{before}` for the epoch milliseconds
   * the version began at: an upgrade fills new tables from the data already stored.
   */
  perStoredDay?: readonly string[];
}

/** Columns every rollup carries besides its key: mergeable states, so several writers' rows of one minute add up. */
const rollupFigures = `
  count AggregateFunction(count),
  error_count AggregateFunction(sum, UInt8),
  duration_sum_ms AggregateFunction(sum, Float64),
  duration_max_ms AggregateFunction(max, Float64),
  histogram AggregateFunction(sumMap, Array(UInt16), Array(UInt64))`;

const rollupStates = `
  countState() AS count,
  sumState(is_error) AS error_count,
  sumState(duration_ms) AS duration_sum_ms,
  maxState(duration_ms) AS duration_max_ms,
  sumMapState([latency_bucket], [toUInt64(1)]) AS histogram`;

const minuteOf = 'toUInt64(floor(started_at / 60000)) * 60000';

/**
 * The sizes of the rollup tiers, in milliseconds (a minute, 15 minutes, an hour, a day): each
 * divides the next and a day, so a tier's bucket lies in one day partition. A read covers its
 * range with the coarsest buckets that fit (clickhouse-rollups.ts), minutes at the ragged ends.
 */
export const clickHouseTierSizesMs = [60_000, 900_000, 3_600_000, 86_400_000] as const;

/**
 * Rows per granule of the tier tables. Reading a histogram state (sumMap) costs about 20 µs a row
 * on 18.16, and a read deserializes every row of each granule it touches: small granules keep a
 * read's rows close to the buckets it asks for (SigNoz's small aggregate tables use 32 too).
 */
const tierGranuleRows = 32;

/**
 * A tier table: a per-minute rollup's figures summed into buckets of every tier size at once
 * (ARRAY JOIN in the view: one table, one view, one pass over an inserted block), at the key a
 * view reads, in the order its reads want. `tier_ms` leads, so each tier reads as its own table.
 */
function tierTable(name: string, keyColumns: string, orderBy: string, figures: string): string {
  return `CREATE TABLE IF NOT EXISTS {db}.${name} (day Date, tier_ms UInt64, bucket UInt64, ${keyColumns}, ${figures})
    ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (tier_ms, ${orderBy}) SETTINGS index_granularity = ${tierGranuleRows}`;
}

/** What a tier's view selects from `occurrences`, its key and states aside. */
function tierSelect(keys: string, states: string, where: string, groupBy: string): string {
  return `SELECT day, toUInt64(tier) AS tier_ms, toUInt64(floor(started_at / tier_ms)) * tier_ms AS bucket, ${keys}, ${states}
    FROM {db}.occurrences ARRAY JOIN [${clickHouseTierSizesMs.join(', ')}] AS tier
    WHERE ${where} GROUP BY day, tier_ms, bucket, ${groupBy}`;
}

function traceIndexSelect(where: string): string {
  return `SELECT day, trace_id, service, minState(started_at) AS first_started_at, maxState(started_at) AS last_started_at, countState() AS spans
    FROM {db}.occurrences WHERE ${where} GROUP BY day, trace_id, service`;
}

function occurrenceMinutesSelect(where: string): string {
  return `SELECT day, ${minuteOf} AS minute, max(received_at) AS last_received FROM {db}.occurrences WHERE ${where} GROUP BY day, minute`;
}

const errorHistogramState =
  'sumMapState(if(is_error = 1, [latency_bucket], emptyArrayUInt16()), if(is_error = 1, [toUInt64(1)], emptyArrayUInt64())) AS error_histogram';
const errorHistogramFigure = 'error_histogram AggregateFunction(sumMap, Array(UInt16), Array(UInt64))';

/** The tier tables: name, columns, order, the view's selected keys and states, its filter and grouping. */
const tiers = [
  {
    // The services, summary and trend views: a service's figures per role, operations summed away;
    // they read every service's buckets of a range, so time comes first.
    name: 'service_tiers',
    keyColumns: 'service String, environment String, span_role String',
    orderBy: 'bucket, service, environment, span_role',
    figures: `${rollupFigures}, ${errorHistogramFigure}`,
    keys: 'service, environment, span_role',
    states: `${rollupStates}, ${errorHistogramState}`,
    where: '1',
    groupBy: 'service, environment, span_role',
  },
  {
    // The operations view reads the histograms of its top operations only: each operation's
    // buckets are together.
    name: 'operation_tiers',
    keyColumns: 'service String, environment String, span_role String, operation String, kind String',
    orderBy: 'service, environment, span_role, operation, kind, bucket',
    figures: `${rollupFigures}, ${errorHistogramFigure}`,
    keys: 'service, environment, span_role, operation, kind',
    states: `${rollupStates}, ${errorHistogramState}`,
    where: '1',
    groupBy: 'service, environment, span_role, operation, kind',
  },
  {
    name: 'tenant_tiers',
    keyColumns: 'tenant_id String, service String, environment String',
    orderBy: 'bucket, tenant_id, service, environment',
    figures: rollupFigures,
    keys: 'assumeNotNull(tenant_id) AS tenant_id, service, environment',
    states: rollupStates,
    where: 'has_tenant = 1',
    groupBy: 'tenant_id, service, environment',
  },
  {
    name: 'statement_tiers',
    keyColumns: 'service String, environment String, db_system String, statement_hash String, statement AggregateFunction(any, String), db_operation AggregateFunction(any, String)',
    orderBy: 'bucket, service, environment, db_system, statement_hash',
    figures: rollupFigures,
    keys: 'service, environment, assumeNotNull(db_system) AS db_system, assumeNotNull(db_statement_hash) AS statement_hash',
    states: `anyState(assumeNotNull(normalized_statement)) AS statement, anyState(db_operation) AS db_operation, ${rollupStates}`,
    where: 'has_statement = 1',
    groupBy: 'service, environment, db_system, statement_hash',
  },
] as const;

/**
 * The latency histograms of the service and operation tiers as plain rows: a row per tier
 * bucket, key and latency bucket, with the spans and the failed spans in it, summed by
 * SummingMergeTree (several writers' rows of one bucket add up, as the states do). ClickHouse
 * 18.16 merges a `sumMap` state through a map of generic values, about 0.5 µs per latency
 * bucket: the trend of a day at 100 million spans a week read 2,200 states of 141 buckets each
 * in 150-190 ms, the same figures as rows in 30-40 ms. The tiers' own histogram states are no
 * longer read; they stay filled for one release (a rolling upgrade's instances of the version
 * before read them) and go in a later one.
 */
const histogramTiers = [
  { tier: 'service_tiers', name: 'service_tier_histograms', orderBy: 'bucket, service, environment, span_role' },
  // Time first here too (the tier itself is ordered by operation): rows are cheap to skip, where
  // a key-first order made the top operations' read of a week probe each operation's run of
  // buckets in every tier (358 ms at 100 million spans, against about 60 ms for the rows of the
  // week's buckets in time order).
  { tier: 'operation_tiers', name: 'operation_tier_histograms', orderBy: 'bucket, service, environment, span_role, operation, kind' },
] as const;

/** The histogram table of each tier that has one (clickhouse-rollups.ts reads them). */
export const clickHouseTierHistogramTables = histogramTiers.map((table) => table.name);

function histogramTierParts(tierName: (typeof histogramTiers)[number]['tier']) {
  const tier = tiers.find((candidate) => candidate.name === tierName)!;
  return {
    tier,
    select: (where: string) => tierSelect(`${tier.keys}, latency_bucket`, 'count() AS count, sum(is_error) AS error_count', where, `${tier.groupBy}, latency_bucket`),
  };
}

export const clickHouseMigrations: readonly ClickHouseMigration[] = [
  {
    version: '2026-11-27-01-telemetry',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.occurrences (
        day Date,
        id String,
        client_id Nullable(String),
        trace_id String,
        span_id String,
        parent_span_id Nullable(String),
        service String,
        environment String,
        service_version Nullable(String),
        instance Nullable(String),
        operation String,
        kind String,
        span_role String,
        started_at Float64,
        duration_ms Float64,
        latency_bucket UInt16,
        status String,
        is_error UInt8,
        -- Which rollups a row feeds, set by the writer: a view's WHERE cannot test tenant_id or
        -- db_system themselves, which its own assumeNotNull(...) aliases shadow (ClickHouse
        -- substitutes an alias wherever its name appears).
        has_tenant UInt8,
        has_statement UInt8,
        tenant_id Nullable(String),
        http_method Nullable(String),
        http_route Nullable(String),
        http_status_code Nullable(UInt16),
        db_system Nullable(String),
        db_statement Nullable(String),
        db_statement_hash Nullable(String),
        normalized_statement Nullable(String),
        db_operation Nullable(String),
        peer_service Nullable(String),
        peer_address Nullable(String),
        error_type Nullable(String),
        error_message Nullable(String),
        error_stack Nullable(String),
        error_group_id Nullable(String),
        attributes Nullable(String),
        resource_attributes Nullable(String),
        events Nullable(String),
        links Nullable(String),
        received_at UInt64
      ) ENGINE = MergeTree PARTITION BY day ORDER BY (service, started_at)`,
      // Trace id -> the days its spans started on: a trace is read from those partitions only.
      `CREATE TABLE IF NOT EXISTS {db}.trace_days (day Date, trace_id String, started_at Float64)
        ENGINE = MergeTree PARTITION BY day ORDER BY (trace_id, started_at)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.trace_days_mv TO {db}.trace_days AS
        SELECT day, trace_id, started_at FROM {db}.occurrences`,
      `CREATE TABLE IF NOT EXISTS {db}.operation_rollups (
        day Date, minute UInt64, service String, environment String, operation String, kind String, span_role String,
        ${rollupFigures},
        error_histogram AggregateFunction(sumMap, Array(UInt16), Array(UInt64))
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (service, environment, span_role, minute, operation, kind)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.operation_rollups_mv TO {db}.operation_rollups AS
        SELECT day, ${minuteOf} AS minute, service, environment, operation, kind, span_role,
        ${rollupStates},
        sumMapState(if(is_error = 1, [latency_bucket], emptyArrayUInt16()), if(is_error = 1, [toUInt64(1)], emptyArrayUInt64())) AS error_histogram
        FROM {db}.occurrences GROUP BY day, minute, service, environment, operation, kind, span_role`,
      `CREATE TABLE IF NOT EXISTS {db}.tenant_rollups (
        day Date, minute UInt64, tenant_id String, service String, environment String,
        ${rollupFigures}
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (tenant_id, service, environment, minute)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.tenant_rollups_mv TO {db}.tenant_rollups AS
        SELECT day, ${minuteOf} AS minute, assumeNotNull(tenant_id) AS tenant_id, service, environment,
        ${rollupStates}
        FROM {db}.occurrences WHERE has_tenant = 1 GROUP BY day, minute, tenant_id, service, environment`,
      `CREATE TABLE IF NOT EXISTS {db}.statement_rollups (
        day Date, minute UInt64, service String, environment String, db_system String, statement_hash String,
        statement AggregateFunction(any, String),
        -- any() skips NULLs: a statement without db.operation reads back as '' (null to callers).
        db_operation AggregateFunction(any, String),
        ${rollupFigures}
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (service, environment, minute, db_system, statement_hash)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.statement_rollups_mv TO {db}.statement_rollups AS
        SELECT day, ${minuteOf} AS minute, service, environment, assumeNotNull(db_system) AS db_system, assumeNotNull(db_statement_hash) AS statement_hash,
        anyState(assumeNotNull(normalized_statement)) AS statement, anyState(db_operation) AS db_operation,
        ${rollupStates}
        FROM {db}.occurrences
        WHERE has_statement = 1
        GROUP BY day, minute, service, environment, db_system, statement_hash`,
      // Items accepted and refused per receipt minute, for the health view.
      `CREATE TABLE IF NOT EXISTS {db}.ingestion_minutes (day Date, minute UInt64, accepted UInt64, refused UInt64)
        ENGINE = SummingMergeTree PARTITION BY day ORDER BY minute`,
    ],
  },
  {
    version: '2026-11-27-10-error-groups',
    statements: [
      // Error occurrences per group, environment and hour, as mergeable states. A group's own
      // figures (first and last seen, count, latest example) are these merged over every stored
      // hour; its fingerprint parts are computed again from the example (error-fingerprint.ts
      // gives every occurrence of a group the same ones). The example's nullable fields travel
      // with a flag each: a Nullable inside argMax's tuple would not come back as NULL.
      `CREATE TABLE IF NOT EXISTS {db}.error_group_hours (
        day Date, hour UInt64, group_id String, environment String, service String,
        count AggregateFunction(count),
        first_seen AggregateFunction(min, Float64),
        last_seen AggregateFunction(max, Float64),
        example AggregateFunction(argMax, Tuple(String, String, String, String, String, UInt8, UInt8, UInt8), Float64)
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (group_id, environment, hour)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.error_group_hours_mv TO {db}.error_group_hours AS
        SELECT day, toUInt64(floor(started_at / 3600000)) * 3600000 AS hour, assumeNotNull(error_group_id) AS group_id, environment, service,
        countState() AS count, minState(started_at) AS first_seen, maxState(started_at) AS last_seen,
        argMaxState(tuple(trace_id, span_id, ifNull(error_type, ''), ifNull(error_message, ''), ifNull(error_stack, ''),
          isNull(error_type), isNull(error_message), isNull(error_stack)), started_at) AS example
        FROM {db}.occurrences WHERE isNotNull(error_group_id) GROUP BY day, hour, group_id, environment, service`,
      `CREATE TABLE IF NOT EXISTS {db}.error_group_tenants (
        day Date, group_id String, tenant String,
        count AggregateFunction(count),
        last_seen AggregateFunction(max, Float64)
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (group_id, tenant)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.error_group_tenants_mv TO {db}.error_group_tenants AS
        SELECT day, assumeNotNull(error_group_id) AS group_id, assumeNotNull(tenant_id) AS tenant,
        countState() AS count, maxState(started_at) AS last_seen
        FROM {db}.occurrences WHERE isNotNull(error_group_id) AND has_tenant = 1 GROUP BY day, group_id, tenant`,
      // Status changes users made, appended; a group's status is its latest (resolved, then seen
      // after resolution, reads as regressed). Not partitioned: retention keeps the decisions.
      `CREATE TABLE IF NOT EXISTS {db}.error_group_statuses (group_id String, status String, changed_at UInt64, changed_by String)
        ENGINE = MergeTree ORDER BY (group_id, changed_at)`,
    ],
  },
  {
    version: '2026-11-28-01-logs',
    statements: [
      // Log records (logs/log-tables.ts's columns). Ordered for the logs view: a service and
      // environment's records by time; `uid` orders a millisecond's records by arrival and with
      // `time_ms` makes the record's id (clickhouse-log-store.ts). No trace id: '' (the trace
      // days table skips those).
      `CREATE TABLE IF NOT EXISTS {db}.logs (
        day Date,
        time_ms UInt64,
        uid UInt64,
        time_ns UInt32,
        observed_ms UInt64,
        severity_number UInt8,
        severity_text Nullable(String),
        body Nullable(String),
        body_json UInt8,
        event_name Nullable(String),
        service String,
        environment String,
        service_version Nullable(String),
        instance Nullable(String),
        scope_name Nullable(String),
        scope_version Nullable(String),
        trace_id String,
        span_id Nullable(String),
        flags UInt8,
        tenant_id Nullable(String),
        attributes Nullable(String),
        resource_attributes Nullable(String),
        received_at UInt64
      ) ENGINE = MergeTree PARTITION BY day ORDER BY (service, environment, time_ms, uid)`,
      // Trace id -> the days its records are in: a trace's records are read from those partitions only.
      `CREATE TABLE IF NOT EXISTS {db}.log_trace_days (day Date, trace_id String, time_ms UInt64)
        ENGINE = MergeTree PARTITION BY day ORDER BY (trace_id, time_ms)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.log_trace_days_mv TO {db}.log_trace_days AS
        SELECT day, trace_id, time_ms FROM {db}.logs WHERE trace_id != ''`,
      // Records per minute and severity (the logs trend without words, traces or attributes), and
      // per tenant (usage): summed by ClickHouse, so any number of writers add to a minute.
      `CREATE TABLE IF NOT EXISTS {db}.log_counts (
        day Date, minute UInt64, service String, environment String, severity_number UInt8, count UInt64
      ) ENGINE = SummingMergeTree PARTITION BY day ORDER BY (service, environment, minute, severity_number)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.log_counts_mv TO {db}.log_counts AS
        SELECT day, intDiv(time_ms, 60000) * 60000 AS minute, service, environment, severity_number, count() AS count
        FROM {db}.logs GROUP BY day, minute, service, environment, severity_number`,
      `CREATE TABLE IF NOT EXISTS {db}.log_tenant_counts (
        day Date, minute UInt64, tenant String, service String, environment String, count UInt64
      ) ENGINE = SummingMergeTree PARTITION BY day ORDER BY (tenant, service, environment, minute)`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.log_tenant_counts_mv TO {db}.log_tenant_counts AS
        SELECT day, intDiv(time_ms, 60000) * 60000 AS minute, assumeNotNull(tenant_id) AS tenant, service, environment, count() AS count
        FROM {db}.logs WHERE isNotNull(tenant_id) GROUP BY day, minute, tenant, service, environment`,
    ],
  },
  {
    version: '2026-12-01-01-rollup-tiers',
    // The views first, then the fill: a block inserted meanwhile reaches the tiers through the
    // views and has a receipt time after the version began, so the fill skips it (only a batch
    // received before and inserted after that moment, in flight during the upgrade, counts twice).
    statements: tiers.flatMap((tier) => [
      tierTable(tier.name, tier.keyColumns, tier.orderBy, tier.figures),
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.${tier.name}_mv TO {db}.${tier.name} AS ${tierSelect(tier.keys, tier.states, tier.where, tier.groupBy)}`,
    ]),
    perStoredDay: tiers.map(
      (tier) => `INSERT INTO {db}.${tier.name} ${tierSelect(tier.keys, tier.states, `day = toDate('{day}') AND received_at < {before} AND ${tier.where}`, tier.groupBy)}`,
    ),
  },
  {
    version: '2026-12-01-02-trace-index',
    // A trace's days, services and the span of its starts in each (Jaeger's trace id -> time
    // range table): its spans are then read from a few granules of the `(service, started_at)`
    // order, not from a scan of its days' trace ids. One row per trace, day and service once
    // merged; small granules (256 rows), since every read of it is a point look-up in every part.
    // It replaces `trace_days` (a row per span) for reads. `trace_days` and its view stay for one
    // release: instances of the version before, in a rolling upgrade, still read traces through it
    // (docs/operations.md, Upgrades: drop in a later release what this one stops using).
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.trace_index (
        day Date, trace_id String, service String,
        first_started_at AggregateFunction(min, Float64),
        last_started_at AggregateFunction(max, Float64),
        spans AggregateFunction(count)
      ) ENGINE = AggregatingMergeTree PARTITION BY day ORDER BY (trace_id, service) SETTINGS index_granularity = 256`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.trace_index_mv TO {db}.trace_index AS ${traceIndexSelect('1')}`,
    ],
    perStoredDay: [`INSERT INTO {db}.trace_index ${traceIndexSelect("day = toDate('{day}') AND received_at < {before}")}`],
  },
  {
    version: '2026-12-01-03-tier-histograms',
    // The views first, then the fill of the days stored before, as for the tiers.
    statements: histogramTiers.flatMap(({ tier: tierName, name, orderBy }) => {
      const { tier, select } = histogramTierParts(tierName);
      return [
        `CREATE TABLE IF NOT EXISTS {db}.${name} (day Date, tier_ms UInt64, bucket UInt64, ${tier.keyColumns}, latency_bucket UInt16, count UInt64, error_count UInt64)
          ENGINE = SummingMergeTree PARTITION BY day ORDER BY (tier_ms, ${orderBy}, latency_bucket)`,
        `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.${name}_mv TO {db}.${name} AS ${select(tier.where)}`,
      ];
    }),
    perStoredDay: histogramTiers.map(({ tier: tierName, name }) => {
      const { tier, select } = histogramTierParts(tierName);
      return `INSERT INTO {db}.${name} ${select(`day = toDate('{day}') AND received_at < {before} AND ${tier.where}`)}`;
    }),
  },
  {
    version: '2026-12-02-01-dependency-edges',
    // Dependency edges need a parent and its child, which arrive in different services' batches:
    // no view over one insert can count them. A resolver (clickhouse-dependency-resolver.ts)
    // writes them once a minute's spans have settled, and says which receipts each resolution
    // covered; `occurrence_minutes` holds each minute's latest receipt, so a read knows which
    // resolved buckets are still exact.
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.occurrence_minutes (day Date, minute UInt64, last_received UInt64)
        ENGINE = ReplacingMergeTree(last_received) PARTITION BY day ORDER BY minute`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.occurrence_minutes_mv TO {db}.occurrence_minutes AS ${occurrenceMinutesSelect('1')}`,
      // A row per edge and bucket, its latency histogram as two arrays: a row per latency bucket
      // made an hour of 40 edges 6,000 rows, and a day's read 130 ms of grouping on 18.16.
      `CREATE TABLE IF NOT EXISTS {db}.dependency_edges (
        day Date, tier_ms UInt64, bucket UInt64, environment String, source_service String, target String, target_kind String,
        count UInt64, error_count UInt64, latency_buckets Array(UInt16), latency_counts Array(UInt64), covered UInt64
      ) ENGINE = ReplacingMergeTree(covered) PARTITION BY day ORDER BY (tier_ms, bucket, environment, source_service, target, target_kind)
        SETTINGS index_granularity = ${tierGranuleRows}`,
      `CREATE TABLE IF NOT EXISTS {db}.dependency_resolutions (day Date, tier_ms UInt64, bucket UInt64, covered UInt64)
        ENGINE = ReplacingMergeTree(covered) PARTITION BY day ORDER BY (tier_ms, bucket)`,
    ],
    perStoredDay: [`INSERT INTO {db}.occurrence_minutes ${occurrenceMinutesSelect("day = toDate('{day}') AND received_at < {before}")}`],
  },
  {
    version: '2026-12-02-02-unread-views',
    // Views whose tables no read of this release or the one before uses stop being fed: every view
    // over `occurrences` is run on each inserted block and writes a part of its own, the insert's
    // main cost (docs/performance.md, ClickHouse ingest). `trace_days` gave way to `trace_index`
    // two versions ago; the tenant and statement rollups are read through their tiers. The
    // tables stay, holding the days they have until retention drops them. `operation_rollups`
    // keeps its view: the alert rules read it.
    statements: ['trace_days_mv', 'tenant_rollups_mv', 'statement_rollups_mv'].map((view) => `DROP TABLE IF EXISTS {db}.${view}`),
  },
];

/** Database names are written into statements: plain identifiers only. */
function checkDatabaseName(database: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`CLICKHOUSE_DATABASE must be a plain identifier, not "${database}"`);
}

/** The day partitions `occurrences` holds (none before its table exists). */
async function daysStored(client: ClickHouseClient, database: string): Promise<string[]> {
  const result = await client.query({
    query: `SELECT DISTINCT partition FROM system.parts WHERE database = '${database}' AND table = 'occurrences' AND active ORDER BY partition`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ partition: string }>()).map((row) => row.partition);
}

/** Creates the database and applies the versions not recorded yet, in order. */
export async function migrateClickHouse(client: ClickHouseClient, database: string, migrations: readonly ClickHouseMigration[] = clickHouseMigrations): Promise<string[]> {
  checkDatabaseName(database);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  await client.command({ query: `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations (version String, applied_at UInt64) ENGINE = MergeTree ORDER BY version` });
  const result = await client.query({ query: `SELECT version, applied_at FROM ${database}.schema_migrations`, format: 'JSONEachRow' });
  const records = await result.json<{ version: string; applied_at: string }>();
  const applied = new Set(records.map((row) => row.version));
  const record = (version: string, at: number) => client.insert({ table: `${database}.schema_migrations`, values: [{ version, applied_at: at }], format: 'JSONEachRow' });
  const ran: string[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    // A fill interrupted (a stop, a lost connection) goes on where it stopped: each statement run
    // for a day is recorded (`<version>@<day>#<n>`), and the moment the version began
    // (`<version>@began`), so what is left is filled with the same cut-off. Only a statement cut
    // off while running is run again whole (ClickHouse keeps the blocks it had inserted).
    const began = records.find((row) => row.version === `${migration.version}@began`);
    const before = began ? Number(began.applied_at) : Date.now();
    const storedDays = migration.perStoredDay ? await daysStored(client, database) : [];
    for (const statement of migration.statements) await client.command({ query: statement.replaceAll('{db}', database) });
    if (migration.perStoredDay && !began) await record(`${migration.version}@began`, before);
    for (const day of storedDays) {
      for (const [index, statement] of (migration.perStoredDay ?? []).entries()) {
        const done = `${migration.version}@${day}#${index}`;
        if (applied.has(done)) continue;
        await client.command({ query: statement.replaceAll('{db}', database).replaceAll('{day}', day).replaceAll('{before}', String(before)) });
        await record(done, Date.now());
      }
    }
    await record(migration.version, Date.now());
    ran.push(migration.version);
  }
  return ran;
}

/** The versions `database` has not applied (every one where it holds no telemetry schema), changing nothing: a reader checks the schema is this release's. */
export async function pendingClickHouseMigrations(client: ClickHouseClient, database: string, migrations: readonly ClickHouseMigration[] = clickHouseMigrations): Promise<string[]> {
  checkDatabaseName(database);
  const tables = await client.query({
    query: `SELECT count() AS n FROM system.tables WHERE database = '${database}' AND name = 'schema_migrations'`,
    format: 'JSONEachRow',
  });
  const [found] = await tables.json<{ n: string }>();
  if (Number(found?.n ?? 0) === 0) return migrations.map((migration) => migration.version);
  const result = await client.query({ query: `SELECT DISTINCT version FROM ${database}.schema_migrations`, format: 'JSONEachRow' });
  const applied = new Set((await result.json<{ version: string }>()).map((row) => row.version));
  return migrations.map((migration) => migration.version).filter((version) => !applied.has(version));
}
