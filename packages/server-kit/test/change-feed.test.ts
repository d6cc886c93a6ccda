import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gatherBeforeCommit, openDatabase, PostgresChangeFeed, runGathered, type Database } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

// LISTEN/NOTIFY needs PostgreSQL; CI always sets TEST_DATABASE_URL.
if (process.env.TEST_DATABASE_URL) {
  describe('PostgresChangeFeed', () => {
    let test: TestDatabase;
    let database: Database;
    const feeds: PostgresChangeFeed[] = [];
    const feed = () => {
      const created = new PostgresChangeFeed({ url: test.env.DATABASE_URL!, schema: test.env.DATABASE_SCHEMA!, db: database.db, log: pino({ level: 'silent' }) });
      feeds.push(created);
      return created;
    };
    /** A subscriber that records what it hears. */
    const listener = () => {
      const heard: string[] = [];
      const events: string[] = [];
      return { heard, events, handlers: { onMessage: (m: string) => void heard.push(m), onLost: () => void events.push('lost'), onMissed: () => void events.push('missed') } };
    };
    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      database = await openDatabase({ url: test.env.DATABASE_URL, schema: test.env.DATABASE_SCHEMA!, poolSize: 2, dataDir: '.', fileName: 'unused', sqliteSynchronous: 'normal' });
    });
    afterAll(async () => {
      for (const f of feeds) await f.close();
      await database?.close();
      await test?.dispose();
    });

    it('delivers what another instance announces inside a transaction once it commits, and nothing of one rolled back', async () => {
      const [sender, receiver] = [feed(), feed()];
      const { heard, handlers } = listener();
      await receiver.subscribe('things', handlers);
      await database.db.transaction().execute(async (trx) => {
        await sender.publishOnCommit(trx, 'things', 'committed');
        await new Promise((resolve) => setTimeout(resolve, 50));
        // Not before the commit.
        expect(heard).toEqual([]);
      });
      await database.db
        .transaction()
        .execute(async (trx) => {
          await sender.publishOnCommit(trx, 'things', 'rolled back');
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await sender.publish('things', 'after the fact');
      await sender.publish('other topic', 'not for this subscriber');
      await vi.waitFor(() => expect(heard).toEqual(['committed', 'after the fact']));
    });

    it('defers the announcements of a transaction that gathers them to the statement run before its commit, each once', async () => {
      const [sender, receiver] = [feed(), feed()];
      const { heard, handlers } = listener();
      await receiver.subscribe('gathered', handlers);
      await database.db.transaction().execute(async (trx) => {
        gatherBeforeCommit(trx);
        for (const message of ['a', 'b', 'a']) await sender.publishOnCommit(trx, 'gathered', message);
        await runGathered(trx);
      });
      // Gathered but never run: nothing is sent (they were deferred, not sent when announced).
      await database.db.transaction().execute(async (trx) => {
        gatherBeforeCommit(trx);
        await sender.publishOnCommit(trx, 'gathered', 'deferred, never run');
      });
      await sender.publish('gathered', 'after');
      await vi.waitFor(() => expect(heard).toContain('after'));
      expect([...heard].sort()).toEqual(['a', 'after', 'b']);
    });

    it('does not deliver an instance its own announcements', async () => {
      const self = feed();
      const { heard, handlers } = listener();
      await self.subscribe('mine', handlers);
      const other = feed();
      await other.subscribe('mine', listener().handlers);
      await self.publish('mine', 'from myself');
      await other.publish('mine', 'from the other');
      await vi.waitFor(() => expect(heard).toEqual(['from the other']));
    });

    it('keeps schemas sharing a database apart', async () => {
      const elsewhere = await createTestDatabase('postgres');
      try {
        const stranger = new PostgresChangeFeed({ url: elsewhere.env.DATABASE_URL!, schema: elsewhere.env.DATABASE_SCHEMA!, db: database.db, log: pino({ level: 'silent' }) });
        feeds.push(stranger);
        const receiver = feed();
        const { heard, handlers } = listener();
        await receiver.subscribe('things', handlers);
        await stranger.publish('things', 'another schema');
        await feed().publish('things', 'this schema');
        await vi.waitFor(() => expect(heard).toEqual(['this schema']));
        expect(stranger.channel).not.toBe(receiver.channel);
      } finally {
        await elsewhere.dispose();
      }
    });

    it('tells subscribers when its connection drops, reconnects, and tells them they missed changes', async () => {
      const receiver = feed();
      const { heard, events, handlers } = listener();
      await receiver.subscribe('things', handlers);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${receiver.channel}`.execute(database.db);
      await vi.waitFor(() => expect(events).toEqual(['lost', 'missed']), { timeout: 3_000, interval: 10 });
      await feed().publish('things', 'after reconnecting');
      await vi.waitFor(() => expect(heard).toContain('after reconnecting'));
    });
  });
}
