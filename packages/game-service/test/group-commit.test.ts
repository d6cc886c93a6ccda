import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Transaction } from 'kysely';
import { openDatabase, type Database } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { GroupCommitWriter } from '../src/group-commit.js';

/** The writers know no tables: this test writes to one of its own. */
interface WriterTables {
  writes: { name: string };
}

describeEachDatabase('group commit writers', (testDatabase) => {
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

  function writer(maxBatch: number, lanes = 1): GroupCommitWriter<WriterTables> {
    return new GroupCommitWriter(database.db, { dialect: database.dialect, maxBatch, lanes });
  }

  async function names(prefix: string): Promise<string[]> {
    const rows = await database.db.selectFrom('writes').select('name').where('name', 'like', `${prefix}%`).orderBy('name').execute();
    return rows.map((row) => row.name);
  }

  it('group commit: concurrent writes share transactions and all commit', async () => {
    const group = writer(64);
    const transactions = new Set<Transaction<WriterTables>>();
    const names50 = Array.from({ length: 50 }, (_, i) => `g-${String(i).padStart(2, '0')}`);
    await Promise.all(
      names50.map((name) =>
        group.write(async (trx) => {
          transactions.add(trx);
          await trx.insertInto('writes').values({ name }).execute();
        }),
      ),
    );
    expect(await names('g-')).toEqual(names50);
    expect(transactions.size).toBeLessThan(5);
  });

  it('group commit: a batch whose writes all succeed runs each write once, in one transaction', async () => {
    const group = writer(64);
    const runs = new Map<string, number>();
    const transactions = new Set<Transaction<WriterTables>>();
    const written = Array.from({ length: 20 }, (_, i) => `o-${String(i).padStart(2, '0')}`);
    await Promise.all(
      written.map((name) =>
        group.write(async (trx) => {
          transactions.add(trx);
          runs.set(name, (runs.get(name) ?? 0) + 1);
          await trx.insertInto('writes').values({ name }).execute();
        }),
      ),
    );
    expect(await names('o-')).toEqual(written);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(transactions.size).toBe(1);
  });

  it('group commit: a failing write is rolled back to its savepoint; the others of its transaction commit', async () => {
    const group = writer(64);
    // The transaction each write last ran in: the batch runs once without savepoints, is rolled
    // back whole when a write fails, and runs again with a savepoint per write.
    const lastTransaction = new Map<string, Transaction<WriterTables>>();
    const runs = new Map<string, number>();
    const ran = (name: string, trx: Transaction<WriterTables>) => {
      lastTransaction.set(name, trx);
      runs.set(name, (runs.get(name) ?? 0) + 1);
    };
    const before = group.write(async (trx) => {
      ran('before', trx);
      await trx.insertInto('writes').values({ name: 'f-before' }).execute();
    });
    const failing = group.write(async (trx) => {
      ran('failing', trx);
      await trx.insertInto('writes').values({ name: 'f-failed' }).execute();
      throw new Error('refused');
    });
    // A statement the database refuses (a duplicate key) spoils no one else's write either.
    const refused = group.write(async (trx) => {
      ran('refused', trx);
      await trx.insertInto('writes').values({ name: 'f-refused' }).execute();
      await trx.insertInto('writes').values({ name: 'f-before' }).execute();
    });
    const after = group.write(async (trx) => {
      ran('after', trx);
      await trx.insertInto('writes').values({ name: 'f-after' }).execute();
    });
    await expect(failing).rejects.toThrow('refused');
    await expect(refused).rejects.toThrow();
    await Promise.all([before, after]);
    // f-before written in the rolled-back pass and again in the isolated one: stored once.
    expect(await names('f-')).toEqual(['f-after', 'f-before']);
    expect(new Set(lastTransaction.values()).size).toBe(1);
    expect(Object.fromEntries(runs)).toEqual({ failing: 2, before: 2, refused: 1, after: 1 });
  });

  it('group commit: a write is answered only once its transaction has committed', async () => {
    const group = writer(64);
    let firstAnswered = false;
    let answeredBeforeCommit: boolean | undefined;
    const first = group.write((trx) => trx.insertInto('writes').values({ name: 'c-first' }).execute());
    void first.then(() => (firstAnswered = true));
    const second = group.write(async (trx) => {
      await trx.insertInto('writes').values({ name: 'c-second' }).execute();
      // Still inside the transaction both share: the first write must not be answered yet.
      await new Promise((resolve) => setTimeout(resolve, 50));
      answeredBeforeCommit = firstAnswered;
    });
    await Promise.all([first, second]);
    expect(answeredBeforeCommit).toBe(false);
    expect(await names('c-')).toEqual(['c-first', 'c-second']);
  });

  it('lanes: one lane holds its writes to one open transaction; on PostgreSQL another lane commits meanwhile', async () => {
    const lanes = database.dialect === 'postgres' ? 2 : 1;
    const group = writer(64, lanes);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // 'a' and 'b' fall in different lanes of two.
    const slow = group.write(async (trx) => {
      await trx.insertInto('writes').values({ name: 'l-a1' }).execute();
      await held;
    }, 'a');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const sameLane = group.write((trx) => trx.insertInto('writes').values({ name: 'l-a2' }).execute(), 'a');
    const otherLane = group.write((trx) => trx.insertInto('writes').values({ name: 'l-b1' }).execute(), 'b');
    const otherFirst = await Promise.race([otherLane.then(() => 'other lane'), new Promise((resolve) => setTimeout(() => resolve('held'), 300))]);
    expect(otherFirst).toBe(lanes === 2 ? 'other lane' : 'held');
    release();
    await Promise.all([slow, sameLane, otherLane]);
    expect(await names('l-')).toEqual(['l-a1', 'l-a2', 'l-b1']);
  });

  it('group commit: batches never exceed the configured size', async () => {
    const group = writer(4);
    const sizes = new Map<Transaction<WriterTables>, number>();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        group.write(async (trx) => {
          sizes.set(trx, (sizes.get(trx) ?? 0) + 1);
          await trx.insertInto('writes').values({ name: `s-${i}` }).execute();
        }),
      ),
    );
    expect([...sizes.values()]).toEqual([4, 4, 2]);
  });

  it('drain waits for writes already asked for, in every lane', async () => {
    const group = writer(8, 3);
    void group.write((trx) => trx.insertInto('writes').values({ name: 'd-1' }).execute(), 'a');
    void group.write((trx) => trx.insertInto('writes').values({ name: 'd-2' }).execute(), 'b');
    await group.drain();
    expect(await names('d-')).toEqual(['d-1', 'd-2']);
  });
});
