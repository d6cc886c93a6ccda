import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, prepareOnPostgres, type Database } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

// Named prepared statements are PostgreSQL's; CI always sets TEST_DATABASE_URL.
if (process.env.TEST_DATABASE_URL) {
  describe('named prepared statements on PostgreSQL', () => {
    let test: TestDatabase;
    const opened: Database[] = [];
    const open = async (preparedStatements?: boolean) => {
      const database = await openDatabase({ url: test.env.DATABASE_URL, schema: test.env.DATABASE_SCHEMA!, poolSize: 2, dataDir: '.', fileName: 'unused', sqliteSynchronous: 'normal', preparedStatements });
      opened.push(database);
      return database;
    };
    // Texts of this file only: the registry is the process's.
    const registered = 'select $1::int + 1 as n /* prepared-statements.test registered */';
    const unregistered = 'select $1::int + 2 as n /* prepared-statements.test unregistered */';

    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      prepareOnPostgres(registered);
    });
    afterAll(async () => {
      for (const database of opened) await database.close();
      await test?.dispose();
    });

    /** Runs both statements twice on one connection (a transaction), then lists what it has prepared. */
    const runOnOneConnection = (database: Database) =>
      database.db.transaction().execute(async (trx) => {
        const answers: unknown[] = [];
        for (const value of [1, 41]) {
          answers.push((await trx.executeQuery(CompiledQuery.raw(registered, [value]))).rows);
          answers.push((await trx.executeQuery(CompiledQuery.raw(unregistered, [value]))).rows);
        }
        const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
        return { answers, prepared: prepared.rows };
      });

    it('sends a registered text as a statement the connection prepares once, and any other text unnamed', async () => {
      const { answers, prepared } = await runOnOneConnection(await open());
      expect(answers).toEqual([[{ n: 2 }], [{ n: 3 }], [{ n: 42 }], [{ n: 43 }]]);
      expect(prepared).toEqual([{ name: prepareOnPostgres(registered), statement: registered }]);
    });

    it('prepares nothing with preparedStatements off (a pooler that cannot keep them)', async () => {
      const { answers, prepared } = await runOnOneConnection(await open(false));
      expect(answers).toEqual([[{ n: 2 }], [{ n: 3 }], [{ n: 42 }], [{ n: 43 }]]);
      expect(prepared).toEqual([]);
    });

    it('names one text the same every time it is registered', () => {
      expect(prepareOnPostgres(registered)).toBe(prepareOnPostgres(registered));
      expect(prepareOnPostgres(unregistered + ' -- another')).not.toBe(prepareOnPostgres(registered));
    });
  });
}
