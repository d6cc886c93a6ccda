import { describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { insertEntriesIfAbsent } from '../../src/leaderboards/leaderboard-store.js';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

describeEachDatabase('rank engine at boot', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      it('is rebuilt from SQL, with readiness failing on rank-engine until it is loaded', async () => {
        const game = arenaGame(`boot-${variant.name}`);
        const env = { ...variant.env(), ...unthrottled };
        const clock = new ManualClock('2026-11-21T10:00:00.000Z');

        const first = await buildTestApp(database(), env, { clock });
        await storeManifest(first, manifestWith(game));
        for (let i = 0; i < 20; i++) await recordResult(first, game, { id: `p${String(i).padStart(2, '0')}` }, { score: 100 + i, durationMs: 1 });
        // Rows the running engine never heard of: only a rebuild from SQL can know them.
        const unseen = { playerId: 'unseen', displayName: 'Unseen', score: 110.5, subscore: 0, achievedAt: clock.now() };
        await insertEntriesIfAbsent(first.database.db, game.id, [{ boardId: 'high', period: 'all', entry: unseen }, { boardId: 'high', period: '2026-11-21', entry: unseen }], clock.now());
        await first.close();

        const second = await buildTestApp(database(), env, { clock });
        try {
          expect(await second.readiness.failures(1_000)).toEqual([{ check: 'rank-engine', reason: 'loading leaderboards from SQL' }]);
          await second.ready();
          await second.leaderboards.loadRankEngine();
          const reader = await signedIn(second, game.id, 'reader');
          expect((await second.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

          for (const period of ['all', 'daily']) {
            const top = await getJson(second, `/v1/games/${game.id}/leaderboards/high?period=${period}&limit=12`, reader.headers);
            expect(top.body.entries.slice(8, 11).map((e: { playerId: string; rank: number }) => [e.rank, e.playerId])).toEqual([
              [9, 'p11'],
              [10, 'unseen'],
              [11, 'p10'],
            ]);
          }
          expect((await second.leaderboards.ranks.checkConsistency()).filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
          // Ties p11's score but later: ranks right after it.
          clock.advance(1_000);
          const placements = await recordResult(second, game, { id: 'p00' }, { score: 111, durationMs: 1 });
          expect(placements.find((p) => p.boardId === 'high' && p.period === 'all')).toMatchObject({ rank: 10, score: 111, improved: true });
        } finally {
          await second.close();
        }
      });

      it('answers names from the engine, and from SQL where a shared set has none (written by an earlier version)', async () => {
        const game = arenaGame(`names-${variant.name}`);
        const app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock: new ManualClock('2026-11-21T10:00:00.000Z') });
        try {
          await storeManifest(app, manifestWith(game));
          const reader = await signedIn(app, game.id, 'reader');
          for (let i = 0; i < 5; i++) await recordResult(app, game, { id: `p${i}`, displayName: `Name ${i}` }, { score: 10 * i, durationMs: 1 });
          await recordResult(app, game, reader, { score: 25, durationMs: 1 });
          const names = async () => {
            const around = await getJson(app, `/v1/games/${game.id}/leaderboards/high/around-me?radius=2`, reader.headers);
            return around.body.entries.map((e: { playerId: string; displayName: string }) => [e.playerId, e.displayName]);
          };
          const expected = [
            ['p4', 'Name 4'],
            ['p3', 'Name 3'],
            [reader.id, reader.displayName],
            ['p2', 'Name 2'],
            ['p1', 'Name 1'],
          ];
          expect(await names()).toEqual(expected);
          // A rename reaches the engine with the next result, even one that does not move the entry.
          await recordResult(app, game, { id: 'p3', displayName: 'Renamed 3' }, { score: 1, durationMs: 1 });
          expected[1] = ['p3', 'Renamed 3'];
          expect(await names()).toEqual(expected);
          if (!app.redis) return;
          await app.redis.del(`lb:{${game.id}:high:all}:n`);
          expect(await names()).toEqual(expected);
          expect((await app.leaderboards.ranks.checkConsistency()).find((c) => c.setId === `${game.id}:high:all`)).toMatchObject({ firstDifferenceAt: 1 });
        } finally {
          await app.close();
        }
      });
    });
  }
});
