import type { ClickHouseClient } from '@clickhouse/client';
import { stringLiteral } from './clickhouse-literal.js';

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The database holding a shard's own tables when telemetry is sharded: the read database's name with this suffix. */
export const shardDatabaseSuffix = '_shard';

/** The database an instance writes to and prunes: its shard's own, or the one database when not sharded. */
export function shardDatabaseOf(database: string, cluster: string | undefined): string {
  return cluster === undefined ? database : `${database}${shardDatabaseSuffix}`;
}

/**
 * Sharded telemetry (CLICKHOUSE_CLUSTER): every shard keeps the whole schema in `<database>_shard`
 * (the observability instances writing to that server insert there, so an acknowledged batch is
 * in a shard's own tables), and `<database>` holds a `Distributed` table of the same name over
 * each of them, which the reads use: each shard aggregates its part, the server asked merges
 * the states. Creates the read tables missing for the shard tables there are (materialized views
 * and the migrations' record aside); safe to run again and from several instances.
 */
export async function createDistributedTables(client: ClickHouseClient, database: string, cluster: string): Promise<void> {
  if (!identifier.test(cluster)) throw new Error(`CLICKHOUSE_CLUSTER must be a plain identifier, not "${cluster}"`);
  const shardDatabase = shardDatabaseOf(database, cluster);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  const result = await client.query({
    query: `SELECT name FROM system.tables WHERE database = ${stringLiteral(shardDatabase)} AND engine LIKE '%MergeTree' AND name != 'schema_migrations'`,
    format: 'JSONEachRow',
  });
  for (const { name } of await result.json<{ name: string }>()) {
    // rand(): a statement inserting through a read table (rare: the tables ingestion fills are written on a shard) spreads its rows.
    await client.command({ query: `CREATE TABLE IF NOT EXISTS ${database}.${name} AS ${shardDatabase}.${name} ENGINE = Distributed(${cluster}, ${shardDatabase}, ${name}, rand())` });
  }
}
