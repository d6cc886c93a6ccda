import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { topEntriesPerBoard } from '../../src/admin/admin-data.js';
import { AdminBrowser } from '../support/admin-browser-session.js';
import { buildTestApp } from '../support/test-app.js';
import { getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

type Player = Awaited<ReturnType<typeof signedIn>>;
type ShownEntry = { rank: number; playerId: string; displayName: string; score: number; subscore?: number; achievedAt: string; metadata?: Record<string, number> | null };
type Order = 'asc' | 'desc';

/** JSON as the admin pages print it inside HTML (quotes escaped). */
const escapedJson = (value: unknown) => JSON.stringify(value).replaceAll('"', '&quot;');

const today = '2026-11-21T12:00:00.000Z';
const dayMs = 86_400_000;
/** Yesterday's daily key: an ended period, answered from SQL whatever the engine. */
const pastDay = '2026-11-20';

/** One board per pair of score and subscore orders (the run's duration breaks ties), and one without a subscore. */
const orders: ReadonlyArray<[Order, Order]> = [
  ['desc', 'asc'],
  ['desc', 'desc'],
  ['asc', 'asc'],
  ['asc', 'desc'],
];
const boardOf = (score: Order, subscore: Order) => `score-${score}-sub-${subscore}`;

function tieBreakGame(id: string): GameDefinition {
  const source = { adapter: 'score', value: 'score' };
  return {
    id,
    name: `Tie-breaks ${id}`,
    auth: { provider: 'dev' },
    adapters: { score: { type: 'bounded-score', options: {} } },
    boards: [
      ...orders.map(([score, subscore]) => ({
        id: boardOf(score, subscore),
        name: `${score} then ${subscore}`,
        order: score,
        operator: 'best' as const,
        periods: ['all' as const, 'daily' as const],
        source,
        subscore: { value: 'durationMs', order: subscore },
        metadata: { values: ['durationMs', 'score'], maxBytes: 128 },
      })),
      { id: 'latest-sub', name: 'Latest', order: 'desc', operator: 'latest', periods: ['all'], source, subscore: { value: 'durationMs', order: 'asc' }, metadata: { values: ['durationMs'] } },
      { id: 'plain', name: 'No subscore', order: 'desc', operator: 'best', periods: ['all'], source },
      {
        id: 'cup',
        name: 'Cup',
        order: 'desc',
        operator: 'best',
        periods: ['event'],
        source,
        subscore: { value: 'durationMs', order: 'desc' },
        metadata: { values: ['durationMs'] },
        event: { startsAt: '2026-11-21T00:00:00Z', endsAt: '2026-11-23T00:00:00Z' },
      },
    ],
  };
}

/** The expected order: score in its order, subscore in its own, earlier time, then player id by code units. */
function modelOrder<T extends { score: number; subscore: number; achievedAt: number; playerId: string }>(rows: readonly T[], score: Order, subscore: Order): T[] {
  const signed = (order: Order, value: number) => (order === 'desc' ? -value : value);
  return [...rows].sort(
    (a, b) =>
      signed(score, a.score) - signed(score, b.score) ||
      signed(subscore, a.subscore) - signed(subscore, b.subscore) ||
      a.achievedAt - b.achievedAt ||
      (a.playerId < b.playerId ? -1 : a.playerId > b.playerId ? 1 : 0),
  );
}

describeEachDatabase('boards with a subscore and metadata', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      const game = tieBreakGame(`tiebreak-${variant.name}`);
      const clock = new ManualClock(today);
      let app: App;
      let me: Player;
      /** Every player's one run: two scores only, durations from a few values, many at the same time, so ties of every kind occur. */
      const results: Array<{ playerId: string; displayName: string; score: number; subscore: number; achievedAt: number }> = [];
      const others = Array.from({ length: 18 }, (_, i) => ({ id: randomUUID(), displayName: `other-${String(i).padStart(2, '0')}` }));
      const base = () => `/v1/games/${game.id}/leaderboards`;

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(game));
        await app.ready();
        me = await signedIn(app, game.id, 'me');
        const everyone = [me, ...others];
        for (const [i, player] of everyone.entries()) {
          const result = { score: 10 * (i % 2), durationMs: 100 * (i % 3) };
          // Pairs of players share a time: equal score and subscore then fall to the player id.
          const achievedAt = clock.now() + Math.floor(i / 4) * 1_000;
          await recordResult(app, game, player, result, achievedAt);
          await recordResult(app, game, player, result, achievedAt - dayMs);
          results.push({ playerId: player.id, displayName: player.displayName, score: result.score, subscore: result.durationMs, achievedAt });
        }
      });
      afterAll(async () => {
        await app.close();
      });

      for (const [score, subscore] of orders) {
        const board = boardOf(score, subscore);

        it(`ranks ties on a ${score} score by a ${subscore} subscore, then time, then player (${board}), today and in an ended period`, async () => {
          const expected = modelOrder(results, score, subscore);
          for (const period of ['all', 'daily', pastDay]) {
            const page = await getJson(app, `${base()}/${board}?period=${period}&limit=100`, me.headers);
            expect(page.status).toBe(200);
            const shown = page.body.entries as ShownEntry[];
            expect(shown.map((e) => [e.rank, e.playerId, e.score, e.subscore])).toEqual(expected.map((e, i) => [i + 1, e.playerId, e.score, e.subscore]));
            // Metadata: the board's values of the run each entry stands for.
            expect(shown.map((e) => e.metadata)).toEqual(expected.map((e) => ({ durationMs: e.subscore, score: e.score })));
          }
        });

        it(`pages through runs of ties with cursors exactly (${board})`, async () => {
          const expected = modelOrder(results, score, subscore).map((e) => e.playerId);
          for (const period of ['all', pastDay]) {
            const seen: string[] = [];
            const ranks: number[] = [];
            let cursor: string | null = null;
            do {
              const query: string = `${base()}/${board}?period=${period}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
              const page = await getJson(app, query, me.headers);
              expect(page.status).toBe(200);
              seen.push(...page.body.entries.map((e: ShownEntry) => e.playerId));
              ranks.push(...page.body.entries.map((e: ShownEntry) => e.rank));
              cursor = page.body.nextCursor;
            } while (cursor);
            expect(seen).toEqual(expected);
            expect(ranks).toEqual(expected.map((_, i) => i + 1));
          }
        });

        it(`answers /me and /around-me in the same order, with metadata (${board})`, async () => {
          const expected = modelOrder(results, score, subscore);
          const at = expected.findIndex((e) => e.playerId === me.id);
          const mine = await getJson(app, `${base()}/${board}/me?radius=2`, me.headers);
          expect(mine.body.entry).toMatchObject({ rank: at + 1, playerId: me.id, subscore: expected[at]!.subscore, metadata: { durationMs: expected[at]!.subscore, score: expected[at]!.score } });
          const around = await getJson(app, `${base()}/${board}/around-me?radius=3`, me.headers);
          const window = expected.slice(Math.max(0, at - 3), at + 4);
          expect(around.body.entries.map((e: ShownEntry) => [e.playerId, e.subscore, e.metadata])).toEqual(window.map((e) => [e.playerId, e.subscore, { durationMs: e.subscore, score: e.score }]));
        });

        it(`ranks a friends' board by the subscore too, with metadata (${board})`, async () => {
          const friends: string[] = others.slice(0, 9).map((o) => o.id);
          const expected = modelOrder(results.filter((r) => r.playerId === me.id || friends.includes(r.playerId)), score, subscore);
          const page = await getJson(app, `${base()}/${board}?players=${friends.join(',')}&limit=4`, me.headers);
          expect(page.body.entries.map((e: ShownEntry) => [e.rank, e.playerId, e.metadata])).toEqual(
            expected.slice(0, 4).map((e, i) => [i + 1, e.playerId, { durationMs: e.subscore, score: e.score }]),
          );
          const next = await getJson(app, `${base()}/${board}?players=${friends.join(',')}&limit=4&cursor=${page.body.nextCursor}`, me.headers);
          expect(next.body.entries.map((e: ShownEntry) => [e.rank, e.playerId])).toEqual(expected.slice(4, 8).map((e, i) => [i + 5, e.playerId]));
        });
      }

      it('ranks an event window by the subscore and answers metadata on its page and /me', async () => {
        const expected = modelOrder(results, 'desc', 'desc');
        const page = await getJson(app, `${base()}/cup?period=event&limit=100`, me.headers);
        expect([page.status, page.body.state]).toEqual([200, 'live']);
        expect(page.body.entries.map((e: ShownEntry) => [e.rank, e.playerId, e.subscore, e.metadata])).toEqual(
          expected.map((e, i) => [i + 1, e.playerId, e.subscore, { durationMs: e.subscore }]),
        );
        const mine = await getJson(app, `${base()}/cup/me?period=event`, me.headers);
        const at = expected.findIndex((e) => e.playerId === me.id);
        expect(mine.body.entry).toMatchObject({ rank: at + 1, subscore: expected[at]!.subscore, metadata: { durationMs: expected[at]!.subscore } });
      });

      it('answers entries of a board without a subscore or metadata exactly as before: no subscore, no metadata', async () => {
        const page = await getJson(app, `${base()}/plain?limit=2`, me.headers);
        expect(Object.keys(page.body.entries[0]).sort()).toEqual(['achievedAt', 'displayName', 'playerId', 'rank', 'score']);
        const next = await getJson(app, `${base()}/plain?limit=2&cursor=${page.body.nextCursor}`, me.headers);
        expect(next.body.entries[0].rank).toBe(3);
        // Its cursors keep the format they had (version 1, no subscore): cursors issued before subscores existed still page.
        expect(JSON.parse(Buffer.from(page.body.nextCursor, 'base64url').toString())[0]).toBe(1);
      });

      it('refuses a cursor of a board with a subscore on a board without one, and reads an older cursor as subscore 0', async () => {
        const withSubscore = await getJson(app, `${base()}/${boardOf('desc', 'asc')}?limit=2`, me.headers);
        const payload = JSON.parse(Buffer.from(withSubscore.body.nextCursor, 'base64url').toString()) as unknown[];
        const elsewhere = Buffer.from(JSON.stringify([payload[0], payload[1], 'plain', ...payload.slice(3)])).toString('base64url');
        const refused = await getJson(app, `${base()}/plain?cursor=${elsewhere}`, me.headers);
        expect([refused.status, refused.body.error.code]).toEqual([400, 'invalid-cursor']);
        // A version 1 cursor (from before the board declared its subscore) naming the top entry, whose subscore is 0.
        const [top, second] = withSubscore.body.entries as ShownEntry[];
        expect(top!.subscore).toBe(0);
        const older = Buffer.from(JSON.stringify([1, game.id, boardOf('desc', 'asc'), 'all', top!.score, Date.parse(top!.achievedAt), top!.playerId])).toString('base64url');
        const after = await getJson(app, `${base()}/${boardOf('desc', 'asc')}?limit=1&cursor=${older}`, me.headers);
        expect(after.status).toBe(200);
        expect(after.body.entries.map((e: ShownEntry) => [e.rank, e.playerId])).toEqual([[2, second!.playerId]]);
      });

      it("shows each entry's subscore and metadata on the admin game page, as HTML and JSON", async () => {
        // The variants share the database, so the first one registers the administrator and the others sign in.
        const ops = new AdminBrowser(app);
        const registered = await ops.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' });
        if (registered.statusCode >= 400) expect((await ops.login('ops@example.com', 'correct horse battery')).statusCode).toBeLessThan(400);
        const board = boardOf('desc', 'asc');
        const expected = modelOrder(results, 'desc', 'asc').slice(0, topEntriesPerBoard);
        const json = (await ops.get(`/admin/games/${game.id}?period=all`, 'application/json')).json() as { boards: Array<{ id: string; subscore: unknown; entries: ShownEntry[] }> };
        const shown = json.boards.find((b) => b.id === board)!;
        expect(shown.subscore).toEqual({ value: 'durationMs', order: 'asc' });
        expect(shown.entries.map((e) => [e.playerId, e.subscore, e.metadata])).toEqual(expected.map((e) => [e.playerId, e.subscore, { durationMs: e.subscore, score: e.score }]));
        const plain = json.boards.find((b) => b.id === 'plain')!;
        expect(plain.entries.every((e) => !('subscore' in e) && !('metadata' in e))).toBe(true);
        const html = (await ops.get(`/admin/games/${game.id}?period=all`)).body;
        expect(html).toContain('<th class="num" title="tie-break, asc">durationMs</th><th>Metadata</th>');
        expect(html).toContain(`<code>${escapedJson({ durationMs: expected[0]!.subscore, score: expected[0]!.score })}</code>`);
      });

      // Last: this player's entries change the boards the tests above read.
      it('keeps the subscore and metadata of the run that holds the best score; on a tie of scores, of the better subscore', async () => {
        const player = { id: randomUUID(), displayName: 'improver' };
        const entryOf = async (board: string) => (await app.leaderboards.standing(game, board, player.id, { period: 'all', radius: 0 })).entry;
        await recordResult(app, game, player, { score: 50, durationMs: 400 });
        await recordResult(app, game, player, { score: 50, durationMs: 250 });
        await recordResult(app, game, player, { score: 50, durationMs: 900 });
        // Score desc: 50 is its best; quickest (asc) keeps 250, slowest (desc) keeps 900.
        expect(await entryOf(boardOf('desc', 'asc'))).toMatchObject({ score: 50, subscore: 250, metadata: { durationMs: 250, score: 50 } });
        expect(await entryOf(boardOf('desc', 'desc'))).toMatchObject({ score: 50, subscore: 900, metadata: { durationMs: 900, score: 50 } });
        // A better score wins whatever its subscore.
        await recordResult(app, game, player, { score: 60, durationMs: 5_000 });
        expect(await entryOf(boardOf('desc', 'asc'))).toMatchObject({ score: 60, subscore: 5_000, metadata: { durationMs: 5_000, score: 60 } });
        // `latest` keeps the latest run's subscore and metadata.
        expect(await entryOf('latest-sub')).toMatchObject({ score: 60, subscore: 5_000, metadata: { durationMs: 5_000 } });
      });

      it('keeps the rank engine and SQL in agreement', async () => {
        const report = (await app.leaderboards.ranks.checkConsistency()).filter((set) => set.setId.startsWith(`${game.id}:`));
        expect(report.length).toBeGreaterThan(0);
        expect(report.filter((set) => set.firstDifferenceAt !== undefined || set.engineTotal !== set.sqlTotal)).toEqual([]);
      });
    });
  }
});
