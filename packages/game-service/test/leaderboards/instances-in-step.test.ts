import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock, type App, type PostgresChangeFeed } from '@playstack/server-kit';
import { createTestDatabase, type TestDatabase } from '@playstack/server-kit/testing';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, signedIn, unthrottled } from './leaderboard-fixtures.js';
import { differencesFromSql } from './sql-view.js';

/** How soon another instance's change must show (the bound). */
const inStepBoundMs = 1_000;

type Player = { id: string; displayName: string; headers: Record<string, string> };

// Several instances on one PostgreSQL without Redis: each keeps an in-process rank engine, kept in
// step with the others' writes through LISTEN/NOTIFY. (SQLite is one instance per file.)
if (process.env.TEST_DATABASE_URL) {
  describe('two game instances on one PostgreSQL without Redis', () => {
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    const game = arenaGame('in-step');
    let database: TestDatabase;
    let a: App;
    let b: App;
    const players: Player[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      a = await buildTestApp(database, unthrottled, { clock });
      b = await buildTestApp(database, unthrottled, { clock });
      await storeManifest(a, manifestWith(game));
      await b.games.refresh();
      for (const app of [a, b]) {
        await app.ready();
        await app.leaderboards.loadRankEngine();
      }
      for (let i = 0; i < 6; i++) players.push(await signedIn(i % 2 === 0 ? a : b, game.id, `player-${i}`));
      for (const [i, player] of players.entries()) expect((await run(i % 2 === 0 ? a : b, player, `seed-run-${i}`, 100 * (i + 1))).statusCode).toBe(200);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await database?.dispose();
    });

    function run(app: App, player: Player, runId: string, score: number) {
      return app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: player.headers, payload: { runId, payload: { score, durationMs: 60_000 } } });
    }

    type Entry = { playerId: string; score: number };
    /**
     * Reads the first page of `app`'s all-time board until `shows` holds for its entries; answers
     * how long after `started` the answer that showed it came (one read: a full comparison makes
     * some hundred calls, which on a loaded machine take longer than the bound by themselves).
     * Then every page, /me and /around-me of `app` must equal SQL.
     */
    async function seenWithin(app: App, readers: Player[], started: number, shows: (entries: Entry[]) => boolean): Promise<number> {
      let seenAfter: number | undefined;
      while (seenAfter === undefined) {
        const page = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high?limit=10`, headers: readers[0]!.headers });
        expect(page.statusCode).toBe(200);
        if (shows(page.json().entries as Entry[])) seenAfter = performance.now() - started;
        else if (performance.now() - started > 10 * inStepBoundMs) throw new Error(`not seen after ${10 * inStepBoundMs} ms: ${page.body}`);
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await vi.waitFor(async () => expect(await differencesFromSql(app, game, readers)).toEqual([]), { timeout: 10_000, interval: 5 });
      return seenAfter;
    }
    const leads = (player: Player, score: number) => (entries: Entry[]) => entries[0]?.playerId === player.id && entries[0]?.score === score;

    it('shows a run made on A on B within a second, and B ranks its own runs after it', async () => {
      const response = await run(a, players[0]!, 'a-run-top', 10_000);
      const started = performance.now();
      expect(response.statusCode).toBe(200);
      expect(response.json().leaderboards.find((l: { boardId: string; period: string }) => l.boardId === 'high' && l.period === 'all').rank).toBe(1);
      expect(await seenWithin(b, players, started, leads(players[0]!, 10_000))).toBeLessThan(inStepBoundMs);
      // B places a run of its own after A's: second, not first.
      const second = await run(b, players[1]!, 'b-run-second', 9_000);
      const placed = performance.now();
      expect(second.json().leaderboards.find((l: { boardId: string; period: string }) => l.boardId === 'high' && l.period === 'all').rank).toBe(2);
      expect(await seenWithin(a, players, placed, (entries) => entries[1]?.playerId === players[1]!.id && entries[1]?.score === 9_000)).toBeLessThan(inStepBoundMs);
    });

    it('drops a player erased on A from B within a second', async () => {
      const erased = players[0]!;
      const response = await a.inject({ method: 'DELETE', url: `/v1/games/${game.id}/player`, headers: erased.headers });
      const started = performance.now();
      expect(response.statusCode).toBe(200);
      expect(response.json().deleted.entries).toBeGreaterThan(0);
      const remaining = players.slice(1);
      expect(await seenWithin(b, remaining, started, (entries) => entries.length > 0 && entries.every((e) => e.playerId !== erased.id))).toBeLessThan(inStepBoundMs);
      const page = await b.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high`, headers: remaining[0]!.headers });
      expect(page.json().entries.map((e: { playerId: string }) => e.playerId)).not.toContain(erased.id);
      players.splice(0, 1);
    });

    it('answers from SQL while its listening connection is down, says so, and catches up with what it missed', async () => {
      const channel = (b.changes as PostgresChangeFeed).channel;
      // Both instances' listening sessions end, as with a network cut or a PostgreSQL restart, and
      // stay cut (each reconnection ended at once) while A writes.
      const cut = () => sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${channel}`.execute(a.database.db);
      await cut();
      await vi.waitFor(async () => expect((await b.inject({ method: 'GET', url: '/readyz' })).json().degraded.map((d: { check: string }) => d.check)).toContain('leaderboards'), {
        timeout: 5_000,
        interval: 5,
      });
      let cutting = true;
      const keptCut = (async () => {
        while (cutting) {
          await cut();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      try {
        // Changes made while B cannot hear them: B still answers what SQL says.
        for (const [i, player] of players.entries()) expect((await run(a, player, `while-cut-${i}`, 20_000 + i)).statusCode).toBe(200);
        expect(await differencesFromSql(b, game, players)).toEqual([]);
      } finally {
        cutting = false;
        await keptCut;
      }
      await vi.waitFor(async () => expect((await b.inject({ method: 'GET', url: '/readyz' })).json().degraded).toEqual([]), { timeout: 5_000, interval: 20 });
      // Caught up: B's own engine, not SQL, answers again, and it holds A's changes.
      expect((await b.leaderboards.ranks.checkConsistency()).filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
      expect(await differencesFromSql(b, game, players)).toEqual([]);
      const later = await run(a, players[0]!, 'after-catch-up', 50_000);
      const started = performance.now();
      expect(later.statusCode).toBe(200);
      expect(await seenWithin(b, players, started, leads(players[0]!, 50_000))).toBeLessThan(inStepBoundMs);
    });
  });
}
