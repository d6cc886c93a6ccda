import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type ServiceMigration } from '../src/index.js';

const url = process.env.TEST_DATABASE_URL;
const schemaName = () => `t_${randomBytes(6).toString('hex')}`;

const migrations: Record<string, ServiceMigration> = {
  '2026-01-01-01-things': {
    async up(db) {
      await db.schema.createTable('things').addColumn('id', 'integer', (column) => column.primaryKey()).execute();
    },
  },
};

// Kysely finds its migration tables by introspecting every schema; other schemas dropped while
// that runs (tenants sharing a database, parallel suites) must not fail a service's start.
describe.runIf(url)('migrations on a PostgreSQL database whose other schemas come and go', () => {
  it('migrate every time while other schemas are dropped meanwhile', { timeout: 120_000 }, async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const others = Array.from({ length: 150 }, schemaName);
    const ours: string[] = [];
    try {
      for (const other of others) await admin.query(`create schema ${other}; create table ${other}.filler (id serial primary key, note text)`);
      let dropping = true;
      const dropper = (async () => {
        for (const other of others) {
          if (!dropping) break;
          await admin.query(`drop schema ${other} cascade`);
        }
      })();
      let migrated = 0;
      while (migrated < 40) {
        const schema = schemaName();
        ours.push(schema);
        const database = await openDatabase({ url, schema, poolSize: 2, dataDir: tmpdir(), fileName: 'unused.sqlite', sqliteSynchronous: 'normal' });
        try {
          await migrateToLatest(database.db, 'postgres', migrations, 'test');
          const tables = await sql<{ count: string }>`select count(*) as count from information_schema.tables where table_schema = ${schema} and table_name = 'things'`.execute(database.db);
          expect(Number(tables.rows[0]!.count)).toBe(1);
          migrated += 1;
        } finally {
          await database.close();
        }
      }
      dropping = false;
      await dropper;
    } finally {
      for (const schema of [...others, ...ours]) await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });
});
