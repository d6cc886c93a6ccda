import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import type { GameApp } from '../../src/database.js';
import type { BoardDefinition, GameDefinition } from '../../src/manifest/manifest-schema.js';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { getJson, recordResult, signedIn, unthrottled } from './leaderboard-fixtures.js';

// An operator changes a live board's order (or adds a subscore) in the manifest: the running
// engine held its sets sorted the old way; the next read must rank them the new way, as SQL does.

type Shown = { rank: number; playerId: string; score: number; subscore?: number };

function gameWith(id: string, board: Partial<BoardDefinition>): GameDefinition {
  return {
    id,
    name: `Reorder ${id}`,
    auth: { provider: 'dev' },
    adapters: { score: { type: 'bounded-score', options: {} } },
    boards: [{ id: 'main', name: 'Main', order: 'desc', operator: 'latest', periods: ['all', 'daily'], source: { adapter: 'score', value: 'score' }, ...board }],
  };
}

describeEachDatabase("a board whose order the manifest changes", (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      const gameId = `reorder-${variant.name}`;
      const clock = new ManualClock('2026-11-21T12:00:00.000Z');
      let app: GameApp;
      let viewer: Awaited<ReturnType<typeof signedIn>>;
      /** Each player's one result: distinct scores, two durations, so a subscore reorders ties. */
      const results = Array.from({ length: 12 }, (_, i) => ({ id: randomUUID(), score: 100 + 10 * Math.floor(i / 2), durationMs: 1_000 * (1 + (i % 2)) }));

      const page = async (period: string) => {
        const read = await getJson(app, `/v1/games/${gameId}/leaderboards/main?period=${period}&limit=100`, viewer.headers);
        expect(read.status).toBe(200);
        return read.body.entries as Shown[];
      };
      const me = async () => (await getJson(app, `/v1/games/${gameId}/leaderboards/main/me`, viewer.headers)).body.entry as Shown;

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(gameWith(gameId, {})));
        await app.ready();
        viewer = await signedIn(app, gameId, 'viewer');
        const game = app.games.get(gameId)!;
        for (const [i, r] of results.entries()) await recordResult(app, game, { id: r.id, displayName: `p${i}` }, { score: r.score, durationMs: r.durationMs }, clock.now() - i);
        await recordResult(app, game, viewer, { score: 135, durationMs: 1_500 });
      });
      afterAll(async () => {
        await app.close();
      });

      it('ranks by the new order at once, in every current period, page and /me alike, and keeps it through later runs', async () => {
        const scores = (entries: Shown[]) => entries.map((e) => e.score);
        const before = await page('all');
        expect(scores(before)).toEqual([...scores(before)].sort((a, b) => b - a));
        expect((await me()).rank).toBe(before.findIndex((e) => e.playerId === viewer.id) + 1);

        await storeManifest(app, manifestWith(gameWith(gameId, { order: 'asc' })));
        for (const period of ['all', 'daily']) {
          const after = await page(period);
          expect(after).toHaveLength(before.length);
          expect(scores(after)).toEqual([...scores(before)].sort((a, b) => a - b));
          expect(after.map((e) => e.rank)).toEqual(after.map((_, i) => i + 1));
        }
        const ascending = await page('all');
        expect((await me()).rank).toBe(ascending.findIndex((e) => e.playerId === viewer.id) + 1);

        // A run after the change lands where the new order puts it.
        await recordResult(app, app.games.get(gameId)!, viewer, { score: 1, durationMs: 1_500 });
        expect((await me()).rank).toBe(1);
        expect((await page('all'))[0]!.playerId).toBe(viewer.id);
      });

      it('orders ties by a subscore declared later (entries recorded before it hold 0, later runs their value), as SQL does', async () => {
        await storeManifest(app, manifestWith(gameWith(gameId, { order: 'desc', subscore: { value: 'durationMs', order: 'desc' } })));
        const game = app.games.get(gameId)!;
        // Runs after the declaration carry their subscore: each pair of tied scores splits by duration, longer first.
        for (const [i, r] of results.entries()) await recordResult(app, game, { id: r.id, displayName: `p${i}` }, { score: r.score, durationMs: r.durationMs }, clock.now() + 1_000 + i);
        const engine = await page('all');
        const expected = [...results].sort((a, b) => b.score - a.score || b.durationMs - a.durationMs).map((r) => [r.id, r.score, r.durationMs]);
        expect(engine.filter((e) => e.playerId !== viewer.id).map((e) => [e.playerId, e.score, e.subscore])).toEqual(expected);
        // Today's daily set holds the same runs, so it ranks them alike; and every held set agrees with SQL.
        const daily = await page('daily');
        expect(daily.map((e) => [e.playerId, e.score, e.subscore])).toEqual(engine.map((e) => [e.playerId, e.score, e.subscore]));
        const consistency = await app.leaderboards.ranks.checkConsistency();
        expect(consistency.length).toBeGreaterThan(0);
        expect(consistency.filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
      });
    });
  }
});
