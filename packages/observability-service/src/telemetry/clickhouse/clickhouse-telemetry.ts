import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '@playstack/server-kit';
import type { OccurrenceRow } from '../../query/occurrence-record.js';
import type { RollupAggregate, RollupAggregateQuery, RollupReader } from '../../query/rollup-aggregate.js';
import type { LastSeenReader } from '../../query/services-view.js';
import { traceSpansMax, traceViewOf, type TraceView } from '../../query/trace-view.js';
import type { NewLogRecord } from '../../logs/index.js';
import type { NewOccurrence } from '../../storage/storage-tables.js';
import { dayMs, minuteMs, minuteOf } from '../../time-units.js';
import type { CommitReport } from '../telemetry-store.js';
import { numberLiteral, sentDouble, stringArrayLiteral, stringLiteral } from './clickhouse-literal.js';
import { clickHouseTierHistogramTables, migrateClickHouse, pendingClickHouseMigrations } from './clickhouse-migrations.js';
import { aggregateClickHouseRollups, clickHouseRollupTables, clickHouseTierTables, type ClickHouseRollupQuery } from './clickhouse-rollups.js';
import { ClickHouseWriter, dayOf } from './clickhouse-writer.js';
import { createDistributedTables, shardDatabaseOf } from './clickhouse-cluster.js';

/** The longest one schema statement may run (a day's fill of a new table on a large store). */
const migrationRequestTimeoutMs = 2 * 3_600_000;

/** The occurrence tables retention drops day partitions of (the log store drops its own: clickhouse-log-store.ts). */
const partitionedTables = [
  'occurrences',
  'trace_index',
  // No longer fed (trace_days since trace_index, tenant and statement rollups since their tiers):
  // retention drops the days they hold.
  'trace_days',
  'operation_rollups',
  'tenant_rollups',
  'statement_rollups',
  ...clickHouseTierTables,
  ...clickHouseTierHistogramTables,
  'ingestion_minutes',
  'occurrence_minutes',
  'dependency_edges',
  'dependency_resolutions',
  'error_group_hours',
  'error_group_tenants',
] as const;

export interface ClickHouseTelemetryOptions {
  /** `http://host:8123` (CLICKHOUSE_URL). */
  url: string;
  /** The database holding the telemetry tables (CLICKHOUSE_DATABASE). */
  database: string;
  clock: Clock;
  maxRowsPerInsert: number;
  /** False: writes are not counted for the health view (the copy command's). Default true. */
  countsIngestion?: boolean;
  /**
   * The cluster (of the servers' `remote_servers`) telemetry is sharded over (CLICKHOUSE_CLUSTER):
   * this instance writes to its server's shard tables and reads through `Distributed` tables
   * over every shard (clickhouse-cluster.ts). Unset: one server.
   */
  cluster?: string | undefined;
}

/** A stored occurrence as ClickHouse returns it: the SQL row's columns (64-bit integers arrive as text), and its own. */
export type ClickHouseOccurrenceRow = OccurrenceRow & { id: string; day: string; span_role: string; latency_bucket: number; is_error: number };

/** A stored occurrence with its doubles as the writer sent them (see `sentDouble`). */
export function storedOccurrence(row: ClickHouseOccurrenceRow): ClickHouseOccurrenceRow {
  return { ...row, started_at: sentDouble(row.started_at, 16), duration_ms: sentDouble(row.duration_ms) };
}

/**
 * Telemetry in ClickHouse over HTTP (@clickhouse/client): versioned schema, batched inserts
 * acknowledged once ClickHouse has them, rollups as mergeable states, retention by dropping day
 * partitions: the write path, rollup reads, trace reads, pruning and storage figures that
 * `ClickHouseTelemetryStore` builds the read views on (docs/ingestion-storage.md).
 */
export class ClickHouseTelemetry {
  readonly database: string;
  /** Where this instance writes, prunes and measures: `database`, or its shard's database when sharded. */
  readonly #shardDatabase: string;
  readonly #cluster: string | undefined;
  readonly #client: ClickHouseClient;
  readonly #clientOptions: NonNullable<Parameters<typeof createClient>[0]>;
  readonly #writer: ClickHouseWriter;
  readonly #listeners: Array<(commit: CommitReport) => void> = [];

  constructor(options: ClickHouseTelemetryOptions) {
    this.database = options.database;
    this.#cluster = options.cluster;
    this.#shardDatabase = shardDatabaseOf(options.database, options.cluster);
    // Sharded: a subquery over a read table (a trace's days) runs on each shard over its own table,
    // and a statement inserting through a read table returns once every shard has its rows.
    const sharded = options.cluster === undefined ? {} : { distributed_product_mode: 'local' as const, insert_distributed_sync: 1 as const };
    // The client's own logging is off: a failed insert rejects the write, which ingestion reports.
    this.#clientOptions = {
      url: options.url,
      clickhouse_settings: { wait_end_of_query: 1, ...sharded },
      log: { level: ClickHouseLogLevel.OFF },
      // Servers before 23.11 close an idle connection after 3 s: a socket idle for longer than
      // 1.5 s is not reused, and is checked before reuse, not only by a timer a busy event loop
      // may run late (a reused socket the server had closed fails the request).
      keep_alive: { idle_socket_ttl: 1500, eagerly_destroy_stale_sockets: true },
    };
    this.#client = createClient(this.#clientOptions);
    this.#writer = new ClickHouseWriter({
      client: this.#client,
      database: this.#shardDatabase,
      clock: options.clock,
      maxRowsPerInsert: options.maxRowsPerInsert,
      countsIngestion: options.countsIngestion,
      onCommit: (commit) => {
        for (const listener of this.#listeners) listener(commit);
      },
    });
  }

  /** Creates the database and tables (the versions not applied yet); returns the versions applied now. */
  async migrate(): Promise<string[]> {
    // A client of its own, without the 30 s request limit: filling a new table from the days a
    // large store holds runs one INSERT ... SELECT per day (minutes each at 100 million spans).
    const client = createClient({ ...this.#clientOptions, request_timeout: migrationRequestTimeoutMs });
    try {
      const applied = await migrateClickHouse(client, this.#shardDatabase);
      if (this.#cluster !== undefined) await createDistributedTables(client, this.database, this.#cluster);
      return applied;
    } finally {
      await client.close();
    }
  }

  /** The schema versions this server's database lacks, changing nothing (all of them where it holds no telemetry). */
  pendingMigrations(): Promise<string[]> {
    return pendingClickHouseMigrations(this.#client, this.#shardDatabase);
  }

  /** True when telemetry is sharded over a cluster (reads gather from every shard). */
  get sharded(): boolean {
    return this.#cluster !== undefined;
  }

  /** The database this instance writes to: its shard's own, or `database` when not sharded. */
  get shardDatabase(): string {
    return this.#shardDatabase;
  }

  /** Inserts rows into one of this instance's shard tables (JSONEachRow). */
  async insertShardRows(table: string, values: readonly Record<string, unknown>[]): Promise<void> {
    if (values.length === 0) return;
    await this.#client.insert({ table: `${this.#shardDatabase}.${table}`, values: [...values], format: 'JSONEachRow' });
  }

  /** Resolves once ClickHouse has accepted the rows and log records (group-committed with other writes). */
  write(rows: readonly NewOccurrence[], refused = 0, logs: readonly NewLogRecord[] = []): Promise<void> {
    return this.#writer.write(rows, refused, logs);
  }

  idle(): Promise<void> {
    return this.#writer.idle();
  }

  onCommit(listener: (commit: CommitReport) => void): void {
    this.#listeners.push(listener);
  }

  /** The rows a read statement answers (JSONEachRow: 64-bit integers arrive as text). */
  async rows<Row>(query: string): Promise<Row[]> {
    const result = await this.#client.query({ query, format: 'JSONEachRow' });
    return result.json<Row>();
  }

  /** Runs a statement that answers no rows. */
  async command(query: string): Promise<void> {
    await this.#client.command({ query });
  }

  aggregate(query: ClickHouseRollupQuery): Promise<RollupAggregate[]> {
    return aggregateClickHouseRollups(this.#client, this.database, query);
  }

  /**
   * The rollups as the figure views read them (summary, trend, services' figures, operations,
   * database): the tier tables (clickhouse-rollups.ts picks them; `tiers` is the SQL store's choice).
   */
  readonly rollups: RollupReader = {
    aggregate: (query) => this.aggregate(this.#rollupQuery(query)),
    distinctKeys: async (query) => (await this.aggregate(this.#rollupQuery(query))).map((group) => group.keys),
  };

  #rollupQuery({ table, tiers: _tiers, where, ...rest }: RollupAggregateQuery): ClickHouseRollupQuery {
    if (where && where.length > 0) throw new Error('raw SQL conditions are the SQL store\'s; use equals or oneOf');
    const found = clickHouseRollupTables.find((name) => name === table);
    if (!found) throw new Error(`the ClickHouse store keeps no ${table} yet`);
    return { ...rest, table: found };
  }

  /** Where a trace's spans are: per day and service, the first and last start and how many (`trace_index`). */
  async #traceWhereabouts(traceId: string): Promise<Array<{ day: string; service: string; first: number; last: number; spans: string }>> {
    return this.rows(
      `SELECT day, service, minMerge(first_started_at) AS first, maxMerge(last_started_at) AS last, countMerge(spans) AS spans
        FROM ${this.database}.trace_index WHERE trace_id = ${stringLiteral(traceId)} GROUP BY day, service`,
    );
  }

  /**
   * A trace's occurrences, earliest first, at most `limit`: where they are from `trace_index`,
   * then those days, services and starts only (a few granules of the `(service, started_at)` order).
   */
  async traceSpans(traceIdParam: string, limit: number): Promise<ClickHouseOccurrenceRow[]> {
    return (await this.#traceSpansOf(traceIdParam.toLowerCase(), await this.#traceWhereabouts(traceIdParam.toLowerCase()), limit)).map(storedOccurrence);
  }

  async #traceSpansOf(traceId: string, whereabouts: ReadonlyArray<{ day: string; service: string; first: number; last: number }>, limit: number): Promise<ClickHouseOccurrenceRow[]> {
    if (whereabouts.length === 0) return [];
    // A millisecond either side: the starts come back as decimal text (trace_id decides anyway).
    const places = whereabouts.map(
      (place) =>
        `(day = toDate(${stringLiteral(place.day)}) AND service = ${stringLiteral(place.service)} AND started_at >= ${numberLiteral(Math.floor(place.first) - 1)} AND started_at <= ${numberLiteral(Math.ceil(place.last) + 1)})`,
    );
    return this.rows<ClickHouseOccurrenceRow>(
      `SELECT * FROM ${this.database}.occurrences WHERE (${places.join(' OR ')}) AND trace_id = ${stringLiteral(traceId)}
        ORDER BY started_at, id LIMIT ${numberLiteral(limit)}`,
    );
  }

  /**
   * The latest start per service among (service, environment) pairs (the services view's last
   * seen): each service's latest minute with spans from the minute tier, then the starts of
   * that minute only (a granule or two of the `(service, started_at)` order).
   */
  readonly lastSeen: LastSeenReader = async (pairs, firstMinuteMs, endMinuteMs) => {
    const found = new Map<string, number>();
    if (pairs.length === 0) return found;
    const tuples = pairs.map((pair) => `(${stringLiteral(pair.service)}, ${stringLiteral(pair.environment)})`).join(', ');
    const daysOf = (firstMs: number, lastMs: number) => `day >= toDate(${stringLiteral(dayOf(firstMs))}) AND day <= toDate(${stringLiteral(dayOf(lastMs))})`;
    const days = daysOf(firstMinuteMs, endMinuteMs - 1);
    const latestMinutes = await this.rows<{ service: string; minute: string }>(
      `SELECT service, max(bucket) AS minute FROM ${this.database}.service_tiers
        WHERE ${days} AND tier_ms = ${minuteMs} AND bucket >= ${numberLiteral(firstMinuteMs)} AND bucket < ${numberLiteral(endMinuteMs)} AND (service, environment) IN (${tuples})
        GROUP BY service`,
    );
    if (latestMinutes.length === 0) return found;
    // The starts are read from the days of those minutes only (a week's read holds eight partitions).
    const latest = latestMinutes.map((row) => Number(row.minute));
    const minuteDays = daysOf(Math.min(...latest), Math.max(...latest));
    const minutes = latestMinutes.map(
      (row) => `(service = ${stringLiteral(row.service)} AND started_at >= ${numberLiteral(Number(row.minute))} AND started_at < ${numberLiteral(Number(row.minute) + minuteMs)})`,
    );
    const rows = await this.rows<{ service: string; last: number }>(
      `SELECT service, max(started_at) AS last FROM ${this.database}.occurrences
        WHERE ${minuteDays} AND (${minutes.join(' OR ')}) AND (service, environment) IN (${tuples})
        GROUP BY service`,
    );
    for (const row of rows) found.set(row.service, sentDouble(row.last, 16));
    return found;
  };

  /** A trace as the waterfall the API serves (the SQL store's trace view over these rows). */
  async trace(traceIdParam: string): Promise<TraceView> {
    const traceId = traceIdParam.toLowerCase();
    const whereabouts = await this.#traceWhereabouts(traceId);
    const spans = (await this.#traceSpansOf(traceId, whereabouts, traceSpansMax)).map(storedOccurrence);
    return traceViewOf(traceId, spans, async () => whereabouts.reduce((total, place) => total + Number(place.spans), 0));
  }

  /** Items accepted and refused per receipt minute in [fromMs, toMs). */
  async ingestionTotals(fromMs: number, toMs: number): Promise<{ accepted: number; refused: number }> {
    const result = await this.#client.query({
      query: `SELECT sum(accepted) AS accepted, sum(refused) AS refused FROM ${this.database}.ingestion_minutes
        WHERE minute >= ${numberLiteral(fromMs)} AND minute < ${numberLiteral(toMs)}`,
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ accepted: string; refused: string }>();
    return { accepted: Number(row?.accepted ?? 0), refused: Number(row?.refused ?? 0) };
  }

  /** Raw occurrences stored, and bytes on disk of every telemetry table. */
  async storage(): Promise<{ occurrences: number; bytesOnDisk: number }> {
    const result = await this.#client.query({
      query: `SELECT sumIf(rows, table = 'occurrences') AS occurrences, sum(bytes_on_disk) AS bytes FROM system.parts
        WHERE database = ${stringLiteral(this.#shardDatabase)} AND active`,
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ occurrences: string; bytes: string }>();
    return { occurrences: Number(row?.occurrences ?? 0), bytesOnDisk: Number(row?.bytes ?? 0) };
  }

  /** Rows per table in this server's active parts (rollup rows not merged yet count separately). */
  async tableRows(): Promise<Map<string, number>> {
    const rows = await this.rows<{ table: string; rows: string }>(
      `SELECT table, sum(rows) AS rows FROM system.parts WHERE database = ${stringLiteral(this.#shardDatabase)} AND active GROUP BY table`,
    );
    return new Map(rows.map((row) => [row.table, Number(row.rows)]));
  }

  /**
   * Drops the day partitions that ended at or before `cutoffMs`, table by table: a metadata
   * operation, however many rows a day holds. Retention is therefore by whole UTC days (a day
   * goes when all of it is past the cutoff). Returns the occurrences dropped.
   */
  async prune(cutoffMs: number): Promise<number> {
    return (await this.dropDaysBefore(cutoffMs, partitionedTables)).get('occurrences') ?? 0;
  }

  /** Drops the day partitions of `tables` that ended at or before `cutoffMs`; returns the rows dropped per table. */
  async dropDaysBefore(cutoffMs: number, tables: readonly string[]): Promise<Map<string, number>> {
    const lastDroppable = dayOf(cutoffMs - dayMs);
    const result = await this.#client.query({
      query: `SELECT table, partition, sum(rows) AS rows FROM system.parts
        WHERE database = ${stringLiteral(this.#shardDatabase)} AND active AND has(${stringArrayLiteral(tables)}, table) AND partition <= ${stringLiteral(lastDroppable)}
        GROUP BY table, partition`,
      format: 'JSONEachRow',
    });
    const dropped = new Map<string, number>();
    for (const part of await result.json<{ table: string; partition: string; rows: string }>()) {
      await this.#client.command({ query: `ALTER TABLE ${this.#shardDatabase}.${part.table} DROP PARTITION ${stringLiteral(part.partition)}` });
      dropped.set(part.table, (dropped.get(part.table) ?? 0) + Number(part.rows));
    }
    return dropped;
  }

  /** Counts items accepted and refused in the minute of `atMs`, as a stored batch does (tests). */
  async recordIngestionForTests(atMs: number, accepted: number, refused: number): Promise<void> {
    const minute = minuteOf(atMs);
    await this.#client.insert({ table: `${this.#shardDatabase}.ingestion_minutes`, values: [{ day: dayOf(minute), minute, accepted, refused }], format: 'JSONEachRow' });
  }

  /** Has ClickHouse merge every part now (`OPTIMIZE ... FINAL`): what it does in the background anyway; tests. */
  async optimizeForTests(): Promise<void> {
    for (const table of partitionedTables) await this.#client.command({ query: `OPTIMIZE TABLE ${this.#shardDatabase}.${table} FINAL` });
  }

  /** Drops the database (tests). */
  async dropDatabase(): Promise<void> {
    await this.#client.command({ query: `DROP DATABASE IF EXISTS ${this.database}` });
    await this.#client.command({ query: `DROP DATABASE IF EXISTS ${this.#shardDatabase}` });
  }

  async close(): Promise<void> {
    await this.#writer.idle();
    await this.#client.close();
  }
}
