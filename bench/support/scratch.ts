// Shared by benchmarks: throwaway storage for a run (a data directory, a PostgreSQL schema),
// removed afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The PostgreSQL server benchmarks may use: BENCH_DATABASE_URL, else TEST_DATABASE_URL. */
export const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** Runs `body` with a new directory under the system temp dir (named `prefix…`), removed afterwards. */
export async function withTempDir<T>(prefix: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `body` with a new schema name (`prefix` + random hex) on `url`; the schema is dropped afterwards. */
export async function withPostgresSchema<T>(url: string, prefix: string, body: (schema: string) => Promise<T>): Promise<T> {
  const schema = `${prefix}${randomBytes(4).toString('hex')}`;
  try {
    return await body(schema);
  } finally {
    await dropPostgresSchema(url, schema);
  }
}

/** Drops `schema` on `url` with everything in it (a benchmark's throwaway schema). */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/**
 * With `postgresUrl` set, runs `body` with a service env for PostgreSQL (a new data directory
 * and schema, both removed afterwards); otherwise says how to include PostgreSQL and answers
 * undefined.
 */
export async function onPostgres<T>(
  names: { dirPrefix: string; schemaPrefix: string },
  body: (env: { DATA_DIR: string; DATABASE_URL: string; DATABASE_SCHEMA: string }) => Promise<T>,
): Promise<T | undefined> {
  const url = postgresUrl;
  if (!url) {
    console.log('(set BENCH_DATABASE_URL=postgres://... to include PostgreSQL)');
    return undefined;
  }
  return withTempDir(names.dirPrefix, (dir) => withPostgresSchema(url, names.schemaPrefix, (schema) => body({ DATA_DIR: dir, DATABASE_URL: url, DATABASE_SCHEMA: schema })));
}
