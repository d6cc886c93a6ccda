import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

const beforeStart = '2026-11-27T17:00:00.000Z';
const operator = { actor: 'events@example.com', reason: 'event test' };
const source = { adapter: 'score', value: 'score' };

/** A game with a weekend cup (one window, at most 3 entrants) and a six-hourly race whose windows last two hours. */
function eventGame(id: string): GameDefinition {
  const arena = arenaGame(id);
  return {
    ...arena,
    boards: [
      arena.boards[0]!,
      {
        id: 'cup',
        name: 'Weekend cup',
        order: 'desc',
        operator: 'best',
        periods: ['event', 'all'],
        source,
        event: { startsAt: '2026-11-27T18:00:00Z', endsAt: '2026-11-29T18:00:00Z', maxEntrants: 3 },
      },
      {
        id: 'race',
        name: 'Six-hourly race',
        order: 'desc',
        operator: 'sum',
        periods: ['event'],
        source,
        event: { anchor: '2026-11-27T18:00:00Z', every: { hours: 6 }, lasts: { hours: 2 } },
      },
    ],
  };
}

type Player = Awaited<ReturnType<typeof signedIn>>;

describeEachDatabase('event boards', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      const games = Array.from({ length: 12 }, (_, i) => eventGame(`ev-${variant.name}-${i}`));
      const clock = new ManualClock(beforeStart);
      let app: App;
      let nextGame = 0;
      let game = games[0]!;
      let players: Player[];
      let runNumber = 0;

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(...games));
      });
      afterAll(async () => {
        await app.close();
      });
      /** Moves the clock and signs the players in again (their access tokens expire as time passes). */
      async function moveTo(iso: string): Promise<void> {
        clock.set(iso);
        players = [];
        for (const name of ['ann', 'bob', 'cem', 'dua']) players.push(await signedIn(app, game.id, name));
      }

      beforeEach(async () => {
        game = games[nextGame++]!;
        await moveTo(beforeStart);
      });

      /** Submits a run over HTTP, as a player would; the response body. */
      async function run(player: Player, score: number) {
        const response = await app.inject({
          method: 'POST',
          url: `/v1/games/${game.id}/runs/score`,
          headers: player.headers,
          payload: { runId: `event-run-${String(runNumber++).padStart(6, '0')}`, payload: { score, durationMs: 60_000 } },
        });
        expect(response.statusCode).toBe(200);
        return response.json();
      }
      const page = async (board: string, period: string) => getJson(app, `/v1/games/${game.id}/leaderboards/${board}?period=${encodeURIComponent(period)}`, players[0]!.headers);
      const scores = (body: { entries: Array<{ displayName: string; score: number }> }) => body.entries.map((e) => [e.displayName, e.score]);

      it('refuses runs before the window, scores inside it, and after its end refuses them and freezes the standings', async () => {
        const early = await run(players[0]!, 50);
        expect(early.notScored).toEqual(expect.arrayContaining([expect.objectContaining({ boardId: 'cup', reason: 'event-not-started' }), expect.objectContaining({ boardId: 'race', reason: 'event-not-started' })]));
        expect(early.leaderboards.map((s: { boardId: string }) => s.boardId)).not.toContain('cup');
        const upcoming = await page('cup', 'event');
        expect(upcoming.body).toMatchObject({ period: '2026-11-27T18:00Z', startsAt: '2026-11-27T18:00:00.000Z', endsAt: '2026-11-29T18:00:00.000Z', state: 'upcoming', entries: [] });

        await moveTo('2026-11-28T12:00:00.000Z');
        const inside = await run(players[0]!, 40);
        expect(inside.notScored.filter((r: { boardId: string }) => r.boardId === 'cup')).toEqual([]);
        expect(inside.leaderboards).toEqual(expect.arrayContaining([{ boardId: 'cup', period: '2026-11-27T18:00Z', score: 40, rank: 1, improved: true }]));
        await run(players[1]!, 70);
        const live = await page('cup', 'event');
        expect(live.body).toMatchObject({ state: 'live' });
        expect(scores(live.body)).toEqual([
          ['bob', 70],
          ['ann', 40],
        ]);

        await moveTo('2026-11-29T18:00:00.000Z');
        const late = await run(players[0]!, 99);
        expect(late.notScored).toEqual(expect.arrayContaining([expect.objectContaining({ boardId: 'cup', reason: 'event-ended' })]));
        // A run achieved inside the window but written after its end (queued): refused too.
        const queued = await recordResult(app, game, { id: players[2]!.id, displayName: 'cem' }, { score: 500, durationMs: 60_000 }, Date.parse('2026-11-29T17:59:59.000Z'));
        expect(queued.map((s) => s.boardId)).not.toContain('cup');

        await moveTo('2026-12-05T00:00:00.000Z');
        for (const period of ['event', '2026-11-27T18:00Z']) {
          const frozen = await page('cup', period);
          expect(frozen.body).toMatchObject({ period: '2026-11-27T18:00Z', state: 'ended', endsAt: '2026-11-29T18:00:00.000Z' });
          expect(scores(frozen.body)).toEqual([
            ['bob', 70],
            ['ann', 40],
          ]);
        }
        // Own rank and neighbours work on the frozen window as on any period.
        const me = await getJson(app, `/v1/games/${game.id}/leaderboards/cup/me?period=event&radius=1`, players[0]!.headers);
        expect(me.body).toMatchObject({ state: 'ended', total: 2, entry: { rank: 2, score: 40 }, neighbors: [{ displayName: 'bob' }] });
        // Calendar boards of the same game took every run.
        expect(scores((await page('high', 'all')).body)).toEqual([
          ['cem', 500],
          ['ann', 99],
          ['bob', 70],
        ]);
      });

      it('keeps each recurring window apart by its start, refuses runs between windows, and reads ended windows by key', async () => {
        await moveTo('2026-11-27T18:30:00.000Z');
        await run(players[0]!, 10);
        await run(players[0]!, 5);
        await run(players[1]!, 12);
        await moveTo('2026-11-27T21:00:00.000Z');
        const between = await run(players[1]!, 100);
        expect(between.notScored).toEqual(expect.arrayContaining([expect.objectContaining({ boardId: 'race', reason: 'event-ended' })]));
        expect((await page('race', 'event')).body).toMatchObject({ period: '2026-11-27T18:00Z', state: 'ended' });
        await moveTo('2026-11-28T00:15:00.000Z');
        const second = await run(players[1]!, 3);
        expect(second.leaderboards).toEqual(expect.arrayContaining([{ boardId: 'race', period: '2026-11-28T00:00Z', score: 3, rank: 1, improved: true }]));

        const current = await page('race', 'event');
        expect(current.body).toMatchObject({ period: '2026-11-28T00:00Z', state: 'live', startsAt: '2026-11-28T00:00:00.000Z', endsAt: '2026-11-28T02:00:00.000Z' });
        expect(scores(current.body)).toEqual([['bob', 3]]);
        const first = await page('race', '2026-11-27T18:00Z');
        expect(first.body).toMatchObject({ state: 'ended' });
        expect(scores(first.body)).toEqual([
          ['ann', 15],
          ['bob', 12],
        ]);
        const upcoming = await page('race', '2026-11-28T06:00Z');
        expect(upcoming.body).toMatchObject({ state: 'upcoming', entries: [] });
      });

      it("ranks a friends' board of an event window among its players: live, refusing runs outside the window, and frozen after its end", async () => {
        // ann's friends: bob and cem (dua, top of the board, is not one of them).
        const friendsOf = (player: Player, ...friends: Player[]) => ({ headers: player.headers, players: friends.map((f) => f.id).join(',') });
        const read = async (path: string, period: string, as: { headers: Record<string, string>; players: string }, query = '') => {
          const answer = await getJson(app, `/v1/games/${game.id}/leaderboards/race${path}?period=${encodeURIComponent(period)}&players=${as.players}${query}`, as.headers);
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          return answer.body;
        };
        const named = (entries: Array<{ displayName: string; score: number; rank: number }>) => entries.map((e) => [e.rank, e.displayName, e.score]);
        const window = { period: '2026-11-27T18:00Z', startsAt: '2026-11-27T18:00:00.000Z', endsAt: '2026-11-27T20:00:00.000Z' };

        // Before the window: cem's run does not score on the race (not on a friends' board of it either).
        expect((await run(players[2]!, 500)).notScored).toEqual(expect.arrayContaining([expect.objectContaining({ boardId: 'race', reason: 'event-not-started' })]));
        await moveTo('2026-11-27T18:30:00.000Z');
        for (const [i, score] of [10, 30, 20, 40].entries()) await run(players[i]!, score);
        const [ann, bob, cem, dua] = players as [Player, Player, Player, Player];
        const mine = friendsOf(ann, bob, cem);
        const expected = [
          [1, 'bob', 30],
          [2, 'cem', 20],
          [3, 'ann', 10],
        ];

        // Live: page by page with cursors, /me with neighbours and /around-me, ranked among ann, bob and cem.
        const first = await read('', 'event', mine, '&limit=2');
        expect(first).toMatchObject({ ...window, state: 'live' });
        expect(named(first.entries)).toEqual(expected.slice(0, 2));
        const liveCursor = first.nextCursor as string;
        const second = await read('', 'event', mine, `&limit=2&cursor=${liveCursor}`);
        expect(named(second.entries)).toEqual(expected.slice(2));
        expect(second.nextCursor).toBeNull();
        const me = await read('/me', 'event', mine, '&radius=1');
        expect(me).toMatchObject({ ...window, state: 'live', total: 3, entry: { displayName: 'ann', rank: 3, score: 10 } });
        expect(named(me.neighbors)).toEqual([[2, 'cem', 20]]);
        expect(named((await read('/around-me', 'event', mine, '&radius=1')).entries)).toEqual(expected.slice(1));
        // The whole window ranks dua first; bob's own friends' board (dua and ann) has dua first too.
        expect(named((await page('race', 'event')).body.entries)).toEqual([
          [1, 'dua', 40],
          [2, 'bob', 30],
          [3, 'cem', 20],
          [4, 'ann', 10],
        ]);
        const bobs = await read('/me', 'event', friendsOf(bob, dua, ann));
        expect(bobs).toMatchObject({ total: 3, entry: { displayName: 'bob', rank: 2 } });

        // After the window (between two): runs do not score, and the friends' board is as it was, frozen.
        await moveTo('2026-11-27T21:00:00.000Z');
        const late = await run(players[2]!, 1_000);
        expect(late.notScored).toEqual(expect.arrayContaining([expect.objectContaining({ boardId: 'race', reason: 'event-ended' })]));
        const ended = { ...window, state: 'ended' };
        const frozenMine = friendsOf(players[0]!, players[1]!, players[2]!);
        const between = await read('', 'event', frozenMine);
        expect(between).toMatchObject(ended);
        expect(named(between.entries)).toEqual(expected);

        // The next window is live: the ended one is read by its key, with the same players (and the cursor taken while it was live).
        await moveTo('2026-11-28T00:30:00.000Z');
        await run(players[1]!, 5);
        const later = friendsOf(players[0]!, players[1]!, players[2]!);
        const current = await read('', 'event', later);
        expect(current).toMatchObject({ period: '2026-11-28T00:00Z', state: 'live' });
        expect(named(current.entries)).toEqual([[1, 'bob', 5]]);
        const frozen = await read('', window.period, later, '&limit=2');
        expect(frozen).toMatchObject(ended);
        expect(named(frozen.entries)).toEqual(expected.slice(0, 2));
        expect(named((await read('', window.period, later, `&limit=2&cursor=${liveCursor}`)).entries)).toEqual(expected.slice(2));
        const frozenMe = await read('/me', window.period, later, '&radius=1');
        expect(frozenMe).toMatchObject({ ...ended, total: 3, entry: { displayName: 'ann', rank: 3, score: 10 } });
        expect(named(frozenMe.neighbors)).toEqual([[2, 'cem', 20]]);
        const frozenAround = await read('/around-me', window.period, later, '&radius=1');
        expect(frozenAround).toMatchObject({ ...ended, total: 3 });
        expect(named(frozenAround.entries)).toEqual(expected.slice(1));
        // The POST variant (players in the body) answers the same.
        const posted = await app.inject({
          method: 'POST',
          url: `/v1/games/${game.id}/leaderboards/race/around-me?period=${encodeURIComponent(window.period)}&radius=1`,
          headers: players[0]!.headers,
          payload: { players: later.players.split(',') },
        });
        expect(posted.json()).toEqual(frozenAround);
      });

      it('answers 400 invalid-period for a time that starts no window and for event on a calendar board', async () => {
        await moveTo('2026-11-28T12:00:00.000Z');
        for (const [board, period] of [
          ['race', '2026-11-27T19:00Z'],
          ['race', '2026-11-27T12:00Z'],
          ['cup', '2026-11-28T18:00Z'],
          ['high', 'event'],
          ['high', '2026-11-27T18:00Z'],
          ['race', 'daily'],
        ] as const) {
          const answer = await page(board, period);
          expect([board, period, answer.status, answer.body.error?.code]).toEqual([board, period, 400, 'invalid-period']);
        }
      });

      it('refuses newcomers once the window has its maximum of entrants, while entrants still improve', async () => {
        await moveTo('2026-11-28T12:00:00.000Z');
        for (const [i, score] of [10, 20, 30].entries()) await run(players[i]!, score);
        const refused = await run(players[3]!, 1_000);
        expect(refused.notScored).toEqual([{ boardId: 'cup', reason: 'event-full', message: expect.stringContaining('3 entrants') }]);
        // Refused on the whole board: its all-time period did not take the run either.
        expect(refused.leaderboards.map((s: { boardId: string }) => s.boardId)).not.toContain('cup');
        const improved = await run(players[0]!, 50);
        expect(improved.leaderboards).toEqual(expect.arrayContaining([{ boardId: 'cup', period: '2026-11-27T18:00Z', score: 50, rank: 1, improved: true }]));
        expect(scores((await page('cup', 'event')).body)).toEqual([
          ['ann', 50],
          ['cem', 30],
          ['bob', 20],
        ]);
        // An operator removing an entry frees its place.
        await app.moderation.removeEntry(game.id, players[2]!.id, { boardId: 'cup', period: 'event' }, operator);
        const entered = await run(players[3]!, 5);
        expect(entered.notScored).toEqual([]);
        expect(scores((await page('cup', 'event')).body).map(([name]) => name)).toEqual(['ann', 'bob', 'dua']);
      });

      it('lets no more than the maximum in when newcomers arrive at once', async () => {
        await moveTo('2026-11-28T12:00:00.000Z');
        const crowd: Player[] = [];
        for (let i = 0; i < 8; i++) crowd.push(await signedIn(app, game.id, `crowd${i}`));
        const answers = await Promise.all(crowd.map((player, i) => run(player, i + 1)));
        expect(answers.filter((a) => a.notScored.some((r: { reason: string }) => r.reason === 'event-full'))).toHaveLength(5);
        expect((await page('cup', 'event')).body.entries).toHaveLength(3);
      });

      it('applies moderation to a frozen window (it corrects cheating), and the engine and SQL agree across the end', async () => {
        await moveTo('2026-11-28T12:00:00.000Z');
        await run(players[0]!, 90);
        await run(players[1]!, 60);
        await run(players[2]!, 30);
        const engineBefore = await app.leaderboards.ranks.checkConsistency();
        expect(engineBefore.filter((s) => s.setId === `${game.id}:cup:2026-11-27T18:00Z`)).toEqual([
          { setId: `${game.id}:cup:2026-11-27T18:00Z`, engineTotal: 3, sqlTotal: 3, firstDifferenceAt: undefined },
        ]);
        await moveTo('2026-11-30T00:00:00.000Z');
        await app.moderation.hide(game.id, players[0]!.id, { shadow: false, until: null }, operator);
        expect(scores((await page('cup', 'event')).body)).toEqual([
          ['bob', 60],
          ['cem', 30],
        ]);
        await app.moderation.unhide(game.id, players[0]!.id, operator);
        expect(scores((await page('cup', '2026-11-27T18:00Z')).body)).toEqual([
          ['ann', 90],
          ['bob', 60],
          ['cem', 30],
        ]);
        // The ended window left the engine; every set it still holds agrees with SQL.
        const report = (await app.leaderboards.ranks.checkConsistency()).filter((s) => s.setId.startsWith(`${game.id}:`));
        expect(report.map((s) => s.setId)).not.toContain(`${game.id}:cup:2026-11-27T18:00Z`);
        expect(report.filter((s) => s.firstDifferenceAt !== undefined)).toEqual([]);
      });
    });
  }
});
