import type Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../src/db/sqlite-driver.js';
import { withStatementCache } from '../src/db/statement-cache.js';

function counted(file: Sqlite.Database) {
  let prepared = 0;
  const original = file.prepare.bind(file);
  file.prepare = ((text: string) => {
    prepared += 1;
    return original(text);
  }) as typeof file.prepare;
  return { prepared: () => prepared };
}

describe('the SQLite statement cache', () => {
  it('prepares a repeated query once and answers it correctly every time', async () => {
    const file = new SqliteDatabase(':memory:');
    const counter = counted(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
    await db.schema.createTable('item').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').execute();
    const before = counter.prepared();
    for (let id = 1; id <= 50; id++) await db.insertInto('item').values({ id, name: `n${id}` }).execute();
    for (let id = 1; id <= 50; id++) {
      expect(await db.selectFrom('item').select('name').where('id', '=', id).executeTakeFirst()).toEqual({ name: `n${id}` });
    }
    expect(counter.prepared() - before).toBe(2);
    await db.destroy();
  });

  it('keeps at most the configured number of statements, evicting the least recently used', async () => {
    const file = new SqliteDatabase(':memory:');
    const counter = counted(file);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(file, 2) }) });
    const run = (n: number) => sql`select ${sql.lit(n)} as n`.execute(db);
    await run(1);
    await run(2);
    await run(1); // 1 is now the most recent
    await run(3); // evicts 2
    const before = counter.prepared();
    await run(1);
    await run(3);
    expect(counter.prepared()).toBe(before);
    await run(2);
    expect(counter.prepared()).toBe(before + 1);
    await db.destroy();
  });

  it('follows schema changes: a cached statement sees a column added later', async () => {
    const file = new SqliteDatabase(':memory:');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
    await db.schema.createTable('t').addColumn('a', 'integer').execute();
    await db.insertInto('t').values({ a: 1 }).execute();
    expect(await db.selectFrom('t').selectAll().execute()).toEqual([{ a: 1 }]);
    await db.schema.alterTable('t').addColumn('b', 'integer', (c) => c.defaultTo(7)).execute();
    expect(await db.selectFrom('t').selectAll().execute()).toEqual([{ a: 1, b: 7 }]);
    await db.destroy();
  });

  it('lets a stream finish before the same statement runs again', async () => {
    const file = new SqliteDatabase(':memory:');
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
    await db.schema.createTable('n').addColumn('v', 'integer').execute();
    await db.insertInto('n').values(Array.from({ length: 20 }, (_, v) => ({ v }))).execute();
    const query = () => db.selectFrom('n').select('v').orderBy('v');
    const streamed: number[] = [];
    const [, all] = await Promise.all([
      (async () => {
        for await (const row of query().stream()) streamed.push(row.v as number);
      })(),
      query().execute(),
    ]);
    expect(streamed).toEqual(Array.from({ length: 20 }, (_, v) => v));
    expect(all.map((r) => r.v)).toEqual(streamed);
    await db.destroy();
  });
});
