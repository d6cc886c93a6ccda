import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Transaction } from 'kysely';
import { openDatabase, type Database } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { GroupCommitWriter, TransactionPerWrite } from '../../src/runs/run-writer.js';

/** The writers know no tables: this test writes to one of its own. */
interface WriterTables {
  writes: { name: string };
}

describeEachDatabase('run writers', (testDatabase) => {
  let database: Database<WriterTables>;
  beforeAll(async () => {
    const env = testDatabase().env;
    database = await openDatabase<WriterTables>({
      url: env.DATABASE_URL,
      schema: env.DATABASE_SCHEMA ?? 'public',
      poolSize: 4,
      dataDir: env.DATA_DIR!,
      fileName: 'writer.sqlite',
      sqliteSynchronous: 'normal',
    });
    await database.db.schema.createTable('writes').addColumn('name', 'text', (col) => col.primaryKey()).execute();
  });
  afterAll(async () => {
    await database.close();
  });

  async function names(prefix: string): Promise<string[]> {
    const rows = await database.db.selectFrom('writes').select('name').where('name', 'like', `${prefix}%`).orderBy('name').execute();
    return rows.map((row) => row.name);
  }

  it('group commit: concurrent writes share transactions and all commit', async () => {
    const writer = new GroupCommitWriter(database.db, 64);
    const transactions = new Set<Transaction<WriterTables>>();
    const names50 = Array.from({ length: 50 }, (_, i) => `g-${String(i).padStart(2, '0')}`);
    await Promise.all(
      names50.map((name) =>
        writer.write(async (trx) => {
          transactions.add(trx);
          await trx.insertInto('writes').values({ name }).execute();
        }),
      ),
    );
    expect(await names('g-')).toEqual(names50);
    expect(transactions.size).toBeLessThan(5);
  });

  it('group commit: a failing write is rolled back alone; its batch commits', async () => {
    const writer = new GroupCommitWriter(database.db, 64);
    const failing = writer.write(async (trx) => {
      await trx.insertInto('writes').values({ name: 'f-failed' }).execute();
      throw new Error('refused');
    });
    const before = writer.write((trx) => trx.insertInto('writes').values({ name: 'f-before' }).execute());
    const after = writer.write((trx) => trx.insertInto('writes').values({ name: 'f-after' }).execute());
    await expect(failing).rejects.toThrow('refused');
    await Promise.all([before, after]);
    expect(await names('f-')).toEqual(['f-after', 'f-before']);
  });

  it('group commit: batches never exceed the configured size', async () => {
    const writer = new GroupCommitWriter(database.db, 4);
    const sizes = new Map<Transaction<WriterTables>, number>();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        writer.write(async (trx) => {
          sizes.set(trx, (sizes.get(trx) ?? 0) + 1);
          await trx.insertInto('writes').values({ name: `s-${i}` }).execute();
        }),
      ),
    );
    expect([...sizes.values()]).toEqual([4, 4, 2]);
  });

  it('drain waits for writes already asked for', async () => {
    for (const writer of [new GroupCommitWriter(database.db, 8), new TransactionPerWrite(database.db)]) {
      const prefix = writer instanceof GroupCommitWriter ? 'd-g-' : 'd-t-';
      void writer.write((trx) => trx.insertInto('writes').values({ name: `${prefix}1` }).execute());
      void writer.write((trx) => trx.insertInto('writes').values({ name: `${prefix}2` }).execute());
      await writer.drain();
      expect(await names(prefix)).toEqual([`${prefix}1`, `${prefix}2`]);
    }
  });

  it('transaction per write: a failing write leaves nothing behind', async () => {
    const writer = new TransactionPerWrite(database.db);
    await expect(
      writer.write(async (trx) => {
        await trx.insertInto('writes').values({ name: 't-failed' }).execute();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await names('t-')).toEqual([]);
  });
});
