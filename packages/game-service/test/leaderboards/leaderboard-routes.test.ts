import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

const start = '2026-11-21T10:00:00.000Z';

describeEachDatabase('leaderboards over HTTP', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      // Both variants share the suite's database, so each has games of its own.
      const games = Array.from({ length: 30 }, (_, i) => arenaGame(`${variant.name}-${i}`));
      let app: App;
      const clock = new ManualClock(start);
      let nextGame = 0;
      let game = games[0]!;
      let reader: { id: string; displayName: string; headers: Record<string, string> };

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(...games));
      });
      afterAll(async () => {
        await app.close();
      });
      beforeEach(async () => {
        clock.set(start);
        game = games[nextGame++]!;
        reader = await signedIn(app, game.id, 'reader');
      });

      const url = (board: string, path = '', query = '') => `/v1/games/${game.id}/leaderboards/${board}${path}${query ? `?${query}` : ''}`;
      const page = async (board: string, query = '') => (await getJson(app, url(board, '', query), reader.headers)).body;
      const ids = (body: { entries: Array<{ playerId: string }> }) => body.entries.map((e) => e.playerId);

      it('best on a desc board keeps the highest score and reports improvement', async () => {
        const first = await recordResult(app, game, { id: 'p1' }, { score: 50, durationMs: 9000 });
        expect(first.find((s) => s.boardId === 'high' && s.period === 'all')).toEqual({ boardId: 'high', period: 'all', score: 50, rank: 1, improved: true });
        const worse = await recordResult(app, game, { id: 'p1' }, { score: 40, durationMs: 9000 });
        expect(worse.find((s) => s.boardId === 'high' && s.period === 'all')).toMatchObject({ score: 50, improved: false });
        const better = await recordResult(app, game, { id: 'p1' }, { score: 70, durationMs: 9000 });
        expect(better.find((s) => s.boardId === 'high' && s.period === 'all')).toMatchObject({ score: 70, improved: true });
        expect((await page('high')).entries).toMatchObject([{ rank: 1, playerId: 'p1', score: 70 }]);
      });

      it('best on an asc board keeps the lowest value', async () => {
        await recordResult(app, game, { id: 'p1' }, { score: 1, durationMs: 5000 });
        await recordResult(app, game, { id: 'p2' }, { score: 1, durationMs: 3000 });
        await recordResult(app, game, { id: 'p1' }, { score: 1, durationMs: 8000 });
        await recordResult(app, game, { id: 'p3' }, { score: 1, durationMs: 4000 });
        const body = await page('fastest');
        expect(body.entries.map((e: { playerId: string; score: number }) => [e.playerId, e.score])).toEqual([
          ['p2', 3000],
          ['p3', 4000],
          ['p1', 5000],
        ]);
      });

      it('latest replaces the entry even with a worse score, but not with an older result', async () => {
        await recordResult(app, game, { id: 'p1' }, { score: 90, durationMs: 1 });
        clock.advance(1000);
        const placements = await recordResult(app, game, { id: 'p1' }, { score: 10, durationMs: 1 });
        expect(placements.find((s) => s.boardId === 'latest')).toMatchObject({ score: 10, improved: false });
        await recordResult(app, game, { id: 'p1' }, { score: 99, durationMs: 1 }, clock.now() - 5000);
        expect((await page('latest')).entries).toMatchObject([{ playerId: 'p1', score: 10, achievedAt: new Date(clock.now()).toISOString() }]);
      });

      it('sum adds every result and dates the entry at the latest one', async () => {
        await recordResult(app, game, { id: 'p1' }, { score: 10, durationMs: 1 });
        await recordResult(app, game, { id: 'p2' }, { score: 25, durationMs: 1 });
        clock.advance(60_000);
        const placements = await recordResult(app, game, { id: 'p1' }, { score: 20, durationMs: 1 });
        expect(placements.find((s) => s.boardId === 'total' && s.period === 'all')).toEqual({ boardId: 'total', period: 'all', score: 30, rank: 1, improved: true });
        expect((await page('total')).entries).toMatchObject([
          { rank: 1, playerId: 'p1', score: 30, achievedAt: new Date(clock.now()).toISOString() },
          { rank: 2, playerId: 'p2', score: 25 },
        ]);
      });

      it('breaks ties by earlier achievedAt, then by player id', async () => {
        await recordResult(app, game, { id: 'p-c' }, { score: 100, durationMs: 1 });
        await recordResult(app, game, { id: 'p-b' }, { score: 100, durationMs: 1 });
        clock.advance(-1000);
        await recordResult(app, game, { id: 'p-z' }, { score: 100, durationMs: 1 });
        clock.advance(5000);
        await recordResult(app, game, { id: 'p-a' }, { score: 100, durationMs: 1 });
        await recordResult(app, game, { id: 'p-top' }, { score: 101, durationMs: 1 });
        const body = await page('high');
        expect(ids(body)).toEqual(['p-top', 'p-z', 'p-b', 'p-c', 'p-a']);
        expect(body.entries.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 4, 5]);
      });

      it('rolls daily, weekly and monthly periods over at UTC edges and keeps past periods readable', async () => {
        // Access tokens live 15 minutes: sign in again after each jump of the clock.
        const jump = async (iso: string) => {
          clock.set(iso);
          reader = await signedIn(app, game.id, 'reader');
        };
        await jump('2026-11-30T23:59:59.000Z');
        await recordResult(app, game, { id: 'late' }, { score: 10, durationMs: 1 });
        const before = { daily: await page('high', 'period=daily'), weekly: await page('high', 'period=weekly'), monthly: await page('high', 'period=monthly') };
        expect([before.daily.period, before.weekly.period, before.monthly.period]).toEqual(['2026-11-30', '2026-W49', '2026-11']);
        expect(ids(before.daily)).toEqual(['late']);

        await jump('2026-12-01T00:00:00.000Z');
        await recordResult(app, game, { id: 'early' }, { score: 5, durationMs: 1 });
        const daily = await page('high', 'period=daily');
        expect(daily.period).toBe('2026-12-01');
        expect(ids(daily)).toEqual(['early']);
        expect(ids(await page('high', 'period=monthly'))).toEqual(['early']);
        // Still ISO week 49 (Monday 30 November to Sunday 6 December).
        expect(ids(await page('high', 'period=weekly'))).toEqual(['late', 'early']);
        expect(ids(await page('high', 'period=2026-11-30'))).toEqual(['late']);
        expect(ids(await page('high', 'period=2026-11'))).toEqual(['late']);
        expect(ids(await page('high'))).toEqual(['late', 'early']);

        await jump('2026-12-07T00:00:00.000Z');
        expect((await page('high', 'period=weekly')).period).toBe('2026-W50');
        expect(ids(await page('high', 'period=weekly'))).toEqual([]);
        const pastWeek = await getJson(app, url('high', '/me', 'period=2026-W49&radius=1'), reader.headers);
        expect(pastWeek.body).toMatchObject({ period: '2026-W49', total: 2, entry: null, neighbors: [] });
      });

      it('ranks current periods by the app clock, even one far behind the wall clock', async () => {
        // Recorded while their day and week are not current, so both load from SQL when read.
        clock.set('2020-03-02T10:00:00.000Z');
        const player = await signedIn(app, game.id, 'early-bird');
        const achievedAt = new Date('2020-03-01T10:00:00.000Z').getTime();
        await recordResult(app, game, player, { score: 42, durationMs: 1 }, achievedAt);
        await recordResult(app, game, { id: 'second' }, { score: 41, durationMs: 1 }, achievedAt);
        clock.set('2020-03-01T12:00:00.000Z');
        const again = await signedIn(app, game.id, 'early-bird');
        for (const period of ['daily', 'weekly']) {
          const me = await getJson(app, url('high', '/me', `period=${period}`), again.headers);
          expect(me.body, period).toMatchObject({ total: 2, entry: { rank: 1, score: 42 } });
        }
      });

      it('answers a past period from SQL, not the engine, with the same ranks and neighbours', async () => {
        const players = await Promise.all(['ann', 'bob', 'cat', 'dan'].map((name) => signedIn(app, game.id, name)));
        for (const [i, player] of players.entries()) await recordResult(app, game, player, { score: 100 - i * 10, durationMs: 1 });
        const live = await getJson(app, url('high', '/around-me', 'period=daily&radius=1'), players[2]!.headers);
        expect(ids(live.body)).toEqual([players[1]!.id, players[2]!.id, players[3]!.id]);
        clock.set('2026-11-22T08:00:00.000Z');
        // A name changed in SQL alone shows whether SQL answers: the engine still has the old one.
        await app.database.db
          .updateTable('leaderboard_entries')
          .set({ display_name: 'Dan, as SQL has it' })
          .where('game_id', '=', game.id)
          .where('period', '=', '2026-11-21')
          .where('player_id', '=', players[3]!.id)
          .execute();
        const cat = await signedIn(app, game.id, 'cat');
        const past = await getJson(app, url('high', '/around-me', 'period=2026-11-21&radius=1'), cat.headers);
        const entries = live.body.entries.map((e: { playerId: string }) => (e.playerId === players[3]!.id ? { ...e, displayName: 'Dan, as SQL has it' } : e));
        expect(past.body).toEqual({ ...live.body, entries });
        const me = await getJson(app, url('high', '/me', 'period=2026-11-21&radius=5'), cat.headers);
        expect(me.body).toMatchObject({ total: 4, entry: { rank: 3, playerId: cat.id } });
        expect(me.body.neighbors.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 4]);
      });

      it('pages with keyset cursors that never repeat or skip an entry that did not move', async () => {
        for (let i = 0; i < 30; i++) await recordResult(app, game, { id: `p${String(i).padStart(2, '0')}` }, { score: 1000 - i * 10, durationMs: 1 });
        const first = await page('high', 'limit=10');
        expect(first.entries).toHaveLength(10);
        expect(first.entries[0]).toMatchObject({ rank: 1, playerId: 'p00' });
        // Scores change between pages: one player above the cursor drops below it, one from below jumps to the top.
        await recordResult(app, game, { id: 'p25' }, { score: 5000, durationMs: 1 });
        await recordResult(app, game, { id: 'newcomer' }, { score: 1, durationMs: 1 });
        await recordResult(app, game, { id: 'p03' }, { score: 1, durationMs: 1 }); // best: no change
        const seen = [...ids(first)];
        let cursor: string | null = first.nextCursor;
        while (cursor) {
          const next = await page('high', `limit=10&cursor=${encodeURIComponent(cursor)}`);
          seen.push(...ids(next));
          cursor = next.nextCursor;
        }
        const unmoved = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`).filter((id) => id !== 'p25');
        for (const id of unmoved) expect(seen.filter((s) => s === id), id).toHaveLength(1);
        expect(seen).toContain('newcomer');
        expect(seen.at(-1)).toBe('newcomer');
      });

      it('pages on from where a cursor pointed after its entry moved or was erased', async () => {
        for (let i = 0; i < 10; i++) await recordResult(app, game, { id: `p${i}` }, { score: 100 - i, durationMs: 1 });
        const first = await page('high', 'limit=3');
        expect(ids(first)).toEqual(['p0', 'p1', 'p2']);
        // The cursor's own entry (p2) jumps to the top: the next page still starts right after its old place.
        await recordResult(app, game, { id: 'p2' }, { score: 500, durationMs: 1 });
        const second = await page('high', `limit=3&cursor=${first.nextCursor}`);
        expect(second.entries.map((e: { rank: number; playerId: string }) => [e.rank, e.playerId])).toEqual([
          [4, 'p3'],
          [5, 'p4'],
          [6, 'p5'],
        ]);
        // The next cursor's entry (p5) is erased: paging carries on from its place.
        await app.playerErasure.erase(app.database, { gameId: game.id, playerId: 'p5' }, app.log);
        const third = await page('high', `limit=3&cursor=${second.nextCursor}`);
        expect(third.entries.map((e: { rank: number; playerId: string }) => [e.rank, e.playerId])).toEqual([
          [6, 'p6'],
          [7, 'p7'],
          [8, 'p8'],
        ]);
      });

      it('numbers later pages by global rank and ends with a null cursor', async () => {
        for (let i = 0; i < 5; i++) await recordResult(app, game, { id: `p${i}` }, { score: 50 - i, durationMs: 1 });
        const first = await page('high', 'limit=2');
        const second = await page('high', `limit=2&cursor=${first.nextCursor}`);
        const third = await page('high', `limit=2&cursor=${second.nextCursor}`);
        expect(second.entries.map((e: { rank: number }) => e.rank)).toEqual([3, 4]);
        expect(third.entries).toMatchObject([{ rank: 5, playerId: 'p4' }]);
        expect(third.nextCursor).toBeNull();
        const exact = await page('high', 'limit=5');
        expect(exact.nextCursor).toBeNull();
        expect((await page('high', 'limit=25')).entries).toHaveLength(5);
      });

      describe('me and around-me', () => {
        async function boardOfTen() {
          const players = [];
          for (let i = 0; i < 10; i++) {
            const player = await signedIn(app, game.id, `player${i}`);
            await recordResult(app, game, player, { score: 1000 - i, durationMs: 1 });
            players.push(player);
          }
          return players;
        }

        it('returns the caller at the top with neighbours only below', async () => {
          const players = await boardOfTen();
          const me = await getJson(app, url('high', '/me', 'radius=2'), players[0]!.headers);
          expect(me.status).toBe(200);
          expect(me.body).toMatchObject({ boardId: 'high', period: 'all', total: 10, entry: { rank: 1, playerId: players[0]!.id, displayName: 'player0', score: 1000 } });
          expect(me.body.neighbors.map((e: { rank: number }) => e.rank)).toEqual([2, 3]);
          const around = await getJson(app, url('high', '/around-me', 'radius=3'), players[0]!.headers);
          expect(around.body.entries.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 4]);
        });

        it('returns the caller at the bottom with neighbours only above', async () => {
          const players = await boardOfTen();
          const me = await getJson(app, url('high', '/me', 'radius=2'), players[9]!.headers);
          expect(me.body.entry).toMatchObject({ rank: 10, playerId: players[9]!.id });
          expect(me.body.neighbors.map((e: { rank: number }) => e.rank)).toEqual([8, 9]);
          const around = await getJson(app, url('high', '/around-me'), players[9]!.headers);
          expect(around.body).toMatchObject({ total: 10 });
          expect(around.body.entries.map((e: { rank: number }) => e.rank)).toEqual([5, 6, 7, 8, 9, 10]);
        });

        it('centres around-me on the caller in the middle', async () => {
          const players = await boardOfTen();
          const around = await getJson(app, url('high', '/around-me', 'radius=1'), players[4]!.headers);
          expect(ids(around.body)).toEqual([players[3]!.id, players[4]!.id, players[5]!.id]);
          const me = await getJson(app, url('high', '/me'), players[4]!.headers);
          expect(me.body).not.toHaveProperty('neighbors');
          expect(me.body.entry.rank).toBe(5);
        });

        it('answers a player without an entry with null and an empty window', async () => {
          await boardOfTen();
          const me = await getJson(app, url('high', '/me', 'radius=3'), reader.headers);
          expect(me.body).toEqual({ boardId: 'high', period: 'all', format: 'integer', total: 10, entry: null, neighbors: [] });
          const around = await getJson(app, url('high', '/around-me'), reader.headers);
          expect(around.body).toEqual({ boardId: 'high', period: 'all', format: 'integer', total: 10, entries: [] });
        });
      });

      it('removes a deleted player from every period, in SQL and in the rank engine', async () => {
        const gone = await signedIn(app, game.id, 'gone');
        const stays = await signedIn(app, game.id, 'stays');
        await recordResult(app, game, gone, { score: 500, durationMs: 1 });
        await recordResult(app, game, stays, { score: 100, durationMs: 1 });
        const deleted = await app.inject({ method: 'DELETE', url: `/v1/games/${game.id}/player`, headers: gone.headers });
        expect(deleted.statusCode).toBe(200);
        // high keeps 4 periods, latest 1, total 2, fastest 2.
        expect(deleted.json().deleted.entries).toBe(9);
        for (const period of ['all', 'daily', 'weekly', 'monthly']) {
          const body = await page('high', `period=${period}`);
          expect(ids(body), period).toEqual([stays.id]);
          expect(body.entries[0].rank).toBe(1);
        }
        const me = await getJson(app, url('high', '/me'), stays.headers);
        expect(me.body).toMatchObject({ total: 1, entry: { rank: 1 } });
        expect((await app.leaderboards.ranks.checkConsistency()).filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
      });

      describe('refusals', () => {
        const expectError = async (target: string, status: number, code: string, headers = reader.headers) => {
          const response = await app.inject({ method: 'GET', url: target, headers });
          expect(response.statusCode, target).toBe(status);
          expect(response.json().error).toMatchObject({ code, requestId: response.headers['x-request-id'] });
        };

        it('refuses periods the board does not keep or that are malformed with invalid-period', async () => {
          await expectError(url('latest', '', 'period=daily'), 400, 'invalid-period');
          await expectError(url('high', '', 'period=2026-13'), 400, 'invalid-period');
          await expectError(url('high', '/me', 'period=2027-01-01'), 400, 'invalid-period');
          await expectError(url('high', '/around-me', 'period=nonsense'), 400, 'invalid-period');
          await expectError(url('high', '', 'period=012345678901234567'), 400, 'invalid-request');
        });

        it('refuses bad cursors and cursors of another board or period with invalid-cursor', async () => {
          for (let i = 0; i < 3; i++) await recordResult(app, game, { id: `p${i}` }, { score: i, durationMs: 1 });
          const daily = await page('high', 'period=daily&limit=1');
          await expectError(url('high', '', `cursor=${daily.nextCursor}`), 400, 'invalid-cursor');
          await expectError(url('total', '', `period=daily&cursor=${daily.nextCursor}`), 400, 'invalid-period');
          await expectError(url('fastest', '', `period=daily&cursor=${daily.nextCursor}`), 400, 'invalid-cursor');
          await expectError(url('high', '', 'cursor=not-a-cursor'), 400, 'invalid-cursor');
          await expectError(url('high', '', `cursor=${Buffer.from('{"x":1}').toString('base64url')}`), 400, 'invalid-cursor');
          await expectError(url('high', '', 'cursor=%2B%2B'), 400, 'invalid-cursor');
          await expectError(url('high', '', `cursor=${'a'.repeat(513)}`), 400, 'invalid-request');
          expect((await getJson(app, url('high', '', `period=daily&limit=1&cursor=${daily.nextCursor}`), reader.headers)).status).toBe(200);
        });

        it('validates limit and radius bounds', async () => {
          await expectError(url('high', '', 'limit=0'), 400, 'invalid-request');
          await expectError(url('high', '', 'limit=101'), 400, 'invalid-request');
          await expectError(url('high', '', 'limit=ten'), 400, 'invalid-request');
          await expectError(url('high', '/me', 'radius=0'), 400, 'invalid-request');
          await expectError(url('high', '/me', 'radius=11'), 400, 'invalid-request');
          await expectError(url('high', '/around-me', 'radius=11'), 400, 'invalid-request');
          await expectError(url('high', '/around-me', 'radius=-1'), 400, 'invalid-request');
        });

        it('answers an unknown board with 404 board-not-found and an unknown game with game-not-found', async () => {
          await expectError(url('nope'), 404, 'board-not-found');
          await expectError(url('nope', '/me'), 404, 'board-not-found');
          await expectError(`/v1/games/no-such-game/leaderboards/high`, 404, 'game-not-found');
        });

        it('requires a player token of this game', async () => {
          await expectError(url('high'), 401, 'unauthorized', {});
          const other = await signedIn(app, games[29]!.id, 'elsewhere');
          await expectError(url('high', '/me'), 401, 'unauthorized', other.headers);
        });
      });
    });
  }
});
