import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

type Player = Awaited<ReturnType<typeof signedIn>>;
type ShownEntry = { rank: number; playerId: string; displayName: string; score: number; achievedAt: string };
const operator = { actor: 'ops@example.com', reason: 'test' };
const dayMs = 86_400_000;
const today = '2026-11-21T12:00:00.000Z';
/** Yesterday's daily key: an ended period, answered from SQL whatever the engine. */
const pastDay = '2026-11-20';

/** What a friends' board must answer: the full board's entries of those players, ranked 1..n among themselves. */
function amongst(full: readonly ShownEntry[], ids: readonly string[]): ShownEntry[] {
  return full.filter((e) => ids.includes(e.playerId)).map((e, i) => ({ ...e, rank: i + 1 }));
}

describeEachDatabase("friends' boards", (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      const game = arenaGame(`friends-${variant.name}`);
      const clock = new ManualClock(today);
      let app: App;
      let me: Player;
      let friend: Player;
      let rival: Player;
      /** Players with entries who never sign in (UUIDs, as the service makes them). */
      const others = Array.from({ length: 16 }, (_, i): { id: string; displayName: string } => ({ id: randomUUID(), displayName: `other-${i}` }));
      /** Ids of no player at all: they have no entry and simply do not count. */
      const strangers: string[] = [randomUUID(), randomUUID()];
      const base = () => `/v1/games/${game.id}/leaderboards`;
      const fresh = async (player: Player) => (await signedIn(app, game.id, player.displayName)).headers;

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(game));
        await app.ready();
        me = await signedIn(app, game.id, 'me');
        friend = await signedIn(app, game.id, 'friend');
        rival = await signedIn(app, game.id, 'rival');
        // Scores from a small range, so ties (broken by time, then id) are common.
        const everyone = [me, friend, rival, ...others];
        for (const [i, player] of everyone.entries()) {
          await recordResult(app, game, player, { score: (i * 7) % 5, durationMs: 1_000 + ((i * 13) % 4) }, clock.now() - dayMs);
          await recordResult(app, game, player, { score: (i * 3) % 6, durationMs: 2_000 + ((i * 5) % 3) });
          clock.advance(1_000);
        }
      });
      afterAll(async () => {
        await app.close();
      });

      const fullBoard = async (board: string, period: string, viewer: Player = me): Promise<ShownEntry[]> => {
        const page = await getJson(app, `${base()}/${board}?period=${period}&limit=100`, await fresh(viewer));
        expect(page.status).toBe(200);
        return page.body.entries;
      };

      /** Every page of a friends' board, following cursors, by GET (players in the query) or POST (in the body). */
      const friendsPages = async (board: string, period: string, players: readonly string[], method: 'GET' | 'POST', viewer: Player = me) => {
        const headers = await fresh(viewer);
        const entries: ShownEntry[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: string = `period=${period}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
          const response: Awaited<ReturnType<App['inject']>> = await app.inject(
            method === 'GET'
              ? { method, url: `${base()}/${board}?${query}&players=${players.join(',')}`, headers }
              : { method, url: `${base()}/${board}?${query}`, headers, payload: { players } },
          );
          expect(response.statusCode, response.body).toBe(200);
          const body: { entries: ShownEntry[]; nextCursor: string | null } = response.json();
          entries.push(...body.entries);
          cursor = body.nextCursor;
          pages++;
        } while (cursor);
        return { entries, pages };
      };

      it('ranks the chosen players and the caller 1..n among themselves, page by page, from the engine and from SQL', async () => {
        const chosen = [friend.id, ...others.slice(3, 11).map((o) => o.id), ...strangers];
        for (const board of ['high', 'fastest']) {
          // `all` is the rank engine's (Redis' in that variant); yesterday's is SQL's.
          for (const period of ['all', pastDay]) {
            const expected = amongst(await fullBoard(board, period), [...chosen, me.id]);
            expect(expected).toHaveLength(10);
            for (const method of ['GET', 'POST'] as const) {
              const { entries, pages } = await friendsPages(board, period, chosen, method);
              expect(entries, `${board} ${period} ${method}`).toEqual(expected);
              expect(pages).toBe(4);
            }
            const mine = expected.find((e) => e.playerId === me.id)!;
            const at = expected.indexOf(mine);
            const headers = await fresh(me);
            const players = chosen.join(',');
            const meBody = (await getJson(app, `${base()}/${board}/me?period=${period}&players=${players}&radius=2`, headers)).body;
            expect(meBody).toEqual({
              boardId: board,
              period,
              format: 'integer',
              total: expected.length,
              entry: mine,
              neighbors: expected.slice(Math.max(0, at - 2), at + 3).filter((e) => e !== mine),
            });
            const around = (await getJson(app, `${base()}/${board}/around-me?period=${period}&players=${players}&radius=1`, headers)).body;
            expect(around).toEqual({ boardId: board, period, format: 'integer', total: expected.length, entries: expected.slice(Math.max(0, at - 1), at + 2) });
            const posted = await app.inject({ method: 'POST', url: `${base()}/${board}/around-me?period=${period}&radius=1`, headers, payload: { players: chosen } });
            expect(posted.json()).toEqual(around);
          }
        }
      });

      it('the caller counts without being named; an empty list is the caller alone; a caller without an entry has none', async () => {
        const headers = await fresh(me);
        const alone = await getJson(app, `${base()}/high?players=`, headers);
        expect(alone.body.entries).toMatchObject([{ playerId: me.id, rank: 1 }]);
        const newcomer = await signedIn(app, game.id, 'newcomer');
        const theirs = await getJson(app, `${base()}/high/me?players=${me.id},${friend.id}`, newcomer.headers);
        expect(theirs.body).toMatchObject({ total: 2, entry: null });
        const around = await getJson(app, `${base()}/high/around-me?players=${me.id}`, newcomer.headers);
        expect(around.body).toMatchObject({ total: 1, entries: [] });
      });

      it('a cursor belongs to its set of players: the order and repetition of ids do not matter, another set or the whole board refuse it', async () => {
        const chosen: string[] = others.slice(0, 6).map((o) => o.id);
        const headers = await fresh(me);
        const first = await getJson(app, `${base()}/high?limit=2&players=${chosen.join(',')}`, headers);
        const cursor = first.body.nextCursor as string;
        const reordered = [...chosen].reverse().concat(chosen[0]!.toUpperCase(), me.id);
        const next = await getJson(app, `${base()}/high?limit=2&cursor=${cursor}&players=${reordered.join(',')}`, headers);
        expect(next.status).toBe(200);
        expect(next.body.entries[0].rank).toBe(3);
        const refusals = [
          `${base()}/high?limit=2&cursor=${cursor}&players=${chosen.slice(1).join(',')}`,
          `${base()}/high?limit=2&cursor=${cursor}`,
          `${base()}/high?limit=2&cursor=${(await getJson(app, `${base()}/high?limit=2`, headers)).body.nextCursor}&players=${chosen.join(',')}`,
        ];
        for (const url of refusals) {
          const refused = await getJson(app, url, headers);
          expect(refused.status, url).toBe(400);
          expect(refused.body.error.code).toBe('invalid-cursor');
        }
      });

      it('refuses ids that are not player ids and more than 100 ids with 400 invalid-players', async () => {
        const headers = await fresh(me);
        const hundred = Array.from({ length: 100 }, (): string => randomUUID());
        expect((await getJson(app, `${base()}/high?players=${hundred.join(',')}`, headers)).status).toBe(200);
        const refused = [
          { method: 'GET' as const, url: `${base()}/high?players=${[...hundred, randomUUID()].join(',')}`, message: 'at most 100 player ids, got 101' },
          { method: 'GET' as const, url: `${base()}/high/me?players=${friend.id},robert'); drop table`, message: 'is not a player id' },
          { method: 'GET' as const, url: `${base()}/high/around-me?players=${friend.id},,${me.id}`, message: '"" is not a player id' },
          { method: 'POST' as const, url: `${base()}/high`, payload: { players: [...hundred, randomUUID()] }, message: 'at most 100' },
          { method: 'POST' as const, url: `${base()}/high/me`, payload: { players: ['nobody'] }, message: '"nobody" is not a player id' },
        ];
        for (const { message, ...request } of refused) {
          const response: Awaited<ReturnType<App['inject']>> = await app.inject({ ...request, headers });
          expect(response.statusCode, request.url).toBe(400);
          expect(response.json().error).toMatchObject({ code: 'invalid-players', message: expect.stringContaining(message) });
        }
        const missing = await app.inject({ method: 'POST', url: `${base()}/high`, headers, payload: {} });
        expect(missing.statusCode).toBe(400);
        expect(missing.json().error.code).toBe('invalid-request');
      });

      it('hidden friends leave the friends board; a friend hidden in shadow mode still sees their own entry there', async () => {
        const chosen = [friend.id, rival.id, ...others.slice(0, 4).map((o) => o.id)];
        const before = (await friendsPages('high', 'all', chosen, 'GET')).entries;
        await app.moderation.hide(game.id, rival.id, { shadow: false, until: null }, operator);
        await app.moderation.hide(game.id, friend.id, { shadow: true, until: null }, operator);
        try {
          const mine = (await friendsPages('high', 'all', chosen, 'GET')).entries;
          expect(mine).toEqual(amongst(before, chosen.slice(2).concat(me.id)));
          // The friend's own view: their entry among the visible ones, as before the hiding.
          const theirs = (await friendsPages('high', 'all', [me.id, ...chosen.slice(1)], 'POST', friend)).entries;
          expect(theirs).toEqual(amongst(before, [friend.id, me.id, ...chosen.slice(2)]));
          const theirMe = await getJson(app, `${base()}/high/me?players=${me.id}`, await fresh(friend));
          expect(theirMe.body).toMatchObject({ total: 2, entry: { playerId: friend.id, rank: amongst(before, [friend.id, me.id]).find((e) => e.playerId === friend.id)!.rank } });
        } finally {
          await app.moderation.unhide(game.id, rival.id, operator);
          await app.moderation.unhide(game.id, friend.id, operator);
        }
        expect((await friendsPages('high', 'all', chosen, 'GET')).entries).toEqual(before);
      });

      it('a player hidden in shadow mode sees their own entry in place when paging the whole board; nobody else does', async () => {
        for (const period of ['all', pastDay]) {
          const before = await fullBoard('high', period);
          await app.moderation.hide(game.id, friend.id, { shadow: true, until: null }, operator);
          try {
            const others = await fullBoard('high', period);
            expect(others).toEqual(amongst(before, before.map((e) => e.playerId).filter((id) => id !== friend.id)));
            // Page by page (cursors across the hidden entry): exactly the board as it was.
            const headers = await fresh(friend);
            const paged: ShownEntry[] = [];
            let cursor: string | null = null;
            do {
              const page: { body: { entries: ShownEntry[]; nextCursor: string | null } } = await getJson(app, `${base()}/high?period=${period}&limit=3${cursor ? `&cursor=${cursor}` : ''}`, headers);
              paged.push(...page.body.entries);
              cursor = page.body.nextCursor;
            } while (cursor);
            expect(paged, period).toEqual(before);
          } finally {
            await app.moderation.unhide(game.id, friend.id, operator);
          }
        }
      });
    });
  }
});
