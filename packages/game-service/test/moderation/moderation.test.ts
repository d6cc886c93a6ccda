import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, getJson, recordResult, signedIn, unthrottled } from '../leaderboards/leaderboard-fixtures.js';

type Player = Awaited<ReturnType<typeof signedIn>>;
const operator = { actor: 'ops@example.com', reason: 'test' };
const dayMs = 86_400_000;

/** Every board and period of a game as one player reads it: current periods by name, and yesterday's daily key. */
async function everyBoard(app: App, game: GameDefinition, viewer: Player, pastDay: string): Promise<Record<string, unknown>> {
  const { headers } = await signedIn(app, game.id, viewer.displayName);
  const seen: Record<string, unknown> = {};
  for (const board of game.boards) {
    const periods: string[] = [...board.periods];
    if (board.periods.includes('daily')) periods.push(pastDay);
    for (const period of periods) {
      const page = await getJson(app, `/v1/games/${game.id}/leaderboards/${board.id}?period=${period}&limit=100`, headers);
      expect(page.status).toBe(200);
      seen[`${board.id}/${period}`] = page.body.entries;
    }
  }
  return seen;
}

/** What `before` becomes once `playerId` leaves every rank: their entries gone, the others closed up. */
function without(before: Record<string, unknown>, playerId: string): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(before).map(([set, entries]) => [
      set,
      (entries as Array<{ playerId: string; rank: number }>).filter((e) => e.playerId !== playerId).map((e, i) => ({ ...e, rank: i + 1 })),
    ]),
  );
}

async function expectEngineAgrees(app: App): Promise<void> {
  const report = await app.leaderboards.ranks.checkConsistency();
  expect(report.filter((set) => set.firstDifferenceAt !== undefined)).toEqual([]);
}

describeEachDatabase('moderation', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      const game = arenaGame(`moderation-${variant.name}`);
      const clock = new ManualClock('2026-11-21T12:00:00.000Z');
      const pastDay = '2026-11-20';
      let app: App;
      let players: Player[];
      /** A fresh sign-in of the player (the clock moves past access tokens' lifetime). */
      const fresh = (player: Player) => signedIn(app, game.id, player.displayName);

      beforeAll(async () => {
        app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
        await storeManifest(app, manifestWith(game));
        await app.ready();
        players = [];
        for (const name of ['ann', 'bob', 'cat', 'dan']) players.push(await signedIn(app, game.id, name));
        const scores = [[40, 10], [90, 20], [60, 30], [90, 5]] as const;
        for (const [i, [score, durationMs]] of scores.entries()) {
          await recordResult(app, game, players[i]!, { score: score - 10, durationMs: durationMs + 1 }, clock.now() - dayMs);
          await recordResult(app, game, players[i]!, { score, durationMs });
          clock.advance(1_000);
        }
      });
      afterAll(async () => {
        await app.close();
      });

      it('hiding a player changes every board and period at once; unhiding restores every entry exactly', async () => {
        const [ann, bob] = players as [Player, Player];
        const before = await everyBoard(app, game, ann, pastDay);
        expect(JSON.stringify(before)).toContain(bob.id);

        const hidden = await app.moderation.hide(game.id, bob.id, { shadow: false, until: null }, operator);
        expect(hidden).toMatchObject({ action: 'hide', actor: operator.actor, reason: 'test', before: { hidden: false }, after: { hidden: true, shadow: false, entries: 11 } });
        expect(await everyBoard(app, game, ann, pastDay)).toEqual(without(before, bob.id));
        // Bob sees what everyone sees: no entry of his own.
        const bobsView = await getJson(app, `/v1/games/${game.id}/leaderboards/high/me`, (await fresh(bob)).headers);
        expect(bobsView.body).toMatchObject({ entry: null, total: 3 });
        await expectEngineAgrees(app);

        const unhidden = await app.moderation.unhide(game.id, bob.id, operator);
        expect(unhidden).toMatchObject({ action: 'unhide', before: { hidden: true }, after: { hidden: false, entries: 11 } });
        expect(await everyBoard(app, game, ann, pastDay)).toEqual(before);
        await expectEngineAgrees(app);
      });

      it("a hidden player's new runs stay hidden, and count once unhidden", async () => {
        const [ann, , cat] = players as [Player, Player, Player];
        await app.moderation.hide(game.id, cat.id, { shadow: false, until: null }, operator);
        // A first entry in a new period (tomorrow) and a better score in the current ones.
        clock.advance(dayMs);
        await recordResult(app, game, cat, { score: 1_000, durationMs: 1 });
        const hiddenView = await everyBoard(app, game, ann, '2026-11-21');
        expect(JSON.stringify(hiddenView)).not.toContain(cat.id);
        await expectEngineAgrees(app);
        await app.moderation.unhide(game.id, cat.id, operator);
        const top = await getJson(app, `/v1/games/${game.id}/leaderboards/high?period=daily`, (await fresh(ann)).headers);
        expect(top.body.entries[0]).toMatchObject({ playerId: cat.id, score: 1_000, rank: 1 });
        await expectEngineAgrees(app);
      });

      it('shadow mode: the hidden player still sees their own entry and rank; nobody else does', async () => {
        const [ann, bob] = players as [Player, Player];
        const bobBefore = await getJson(app, `/v1/games/${game.id}/leaderboards/high/around-me?radius=1`, (await fresh(bob)).headers);
        const annBefore = await getJson(app, `/v1/games/${game.id}/leaderboards/high/me`, (await fresh(ann)).headers);
        await app.moderation.hide(game.id, bob.id, { shadow: true, until: null }, operator);

        const bobAfter = await getJson(app, `/v1/games/${game.id}/leaderboards/high/around-me?radius=1`, (await fresh(bob)).headers);
        expect(bobAfter.body).toEqual(bobBefore.body);
        const bobMe = await getJson(app, `/v1/games/${game.id}/leaderboards/high/me`, (await fresh(bob)).headers);
        expect(bobMe.body.entry).toMatchObject({ playerId: bob.id, rank: bobBefore.body.entries.find((e: { playerId: string }) => e.playerId === bob.id).rank });

        const annAfter = await getJson(app, `/v1/games/${game.id}/leaderboards/high/me`, (await fresh(ann)).headers);
        expect(annAfter.body.total).toBe(annBefore.body.total - 1);
        const page = await getJson(app, `/v1/games/${game.id}/leaderboards/high`, (await fresh(ann)).headers);
        expect(page.body.entries.map((e: { playerId: string }) => e.playerId)).not.toContain(bob.id);
        const annAround = await getJson(app, `/v1/games/${game.id}/leaderboards/high/around-me?radius=5`, (await fresh(ann)).headers);
        expect(annAround.body.entries.map((e: { playerId: string }) => e.playerId)).not.toContain(bob.id);

        await app.moderation.unhide(game.id, bob.id, operator);
        await expectEngineAgrees(app);
      });

      it('a hiding with an end time ends by itself, recorded as the system', async () => {
        const [ann, , , dan] = players as [Player, Player, Player, Player];
        const before = await everyBoard(app, game, ann, pastDay);
        await app.moderation.hide(game.id, dan.id, { shadow: false, until: clock.now() + 60_000 }, operator);
        expect(await everyBoard(app, game, ann, pastDay)).toEqual(without(before, dan.id));
        expect(await app.moderation.unhideExpired()).toBe(0);
        clock.advance(60_000);
        expect(await app.moderation.unhideExpired()).toBe(1);
        expect(await everyBoard(app, game, ann, pastDay)).toEqual(before);
        const { entries } = await app.moderation.audit({ gameId: game.id, playerId: dan.id, limit: 1 });
        expect(entries[0]).toMatchObject({ action: 'unhide', actor: 'system' });
      });

      it('refuses to hide until a past time, and to unhide a visible player', async () => {
        const [ann] = players as [Player];
        await expect(app.moderation.hide(game.id, ann.id, { shadow: false, until: clock.now() }, operator)).rejects.toMatchObject({ code: 'invalid-request' });
        await expect(app.moderation.unhide(game.id, ann.id, operator)).rejects.toMatchObject({ code: 'player-not-hidden' });
        await expect(app.moderation.hide(game.id, 'nobody', { shadow: false, until: null }, operator)).rejects.toMatchObject({ code: 'player-not-found' });
      });

      it('removing one entry leaves the others of the player in place', async () => {
        const [ann, , cat] = players as [Player, Player, Player];
        const before = await everyBoard(app, game, ann, pastDay);
        const removed = await app.moderation.removeEntry(game.id, cat.id, { boardId: 'total', period: 'all' }, operator);
        expect(removed).toMatchObject({ action: 'remove-entry', before: { boardId: 'total', period: 'all' }, after: null });
        const after = await everyBoard(app, game, ann, pastDay);
        expect(after['total/all']).toEqual(without(before, cat.id)['total/all']);
        expect({ ...after, 'total/all': null }).toEqual({ ...before, 'total/all': null });
        await expect(app.moderation.removeEntry(game.id, cat.id, { boardId: 'total', period: 'all' }, operator)).rejects.toMatchObject({ code: 'entry-not-found' });
        await expectEngineAgrees(app);
      });

      it("a rejected run's scores are withdrawn from every period: best falls back, latest goes back, sum subtracts", async () => {
        const eve = await signedIn(app, game.id, 'eve');
        const submit = async (runId: string, score: number, flagged: boolean) => {
          const payload = { score, durationMs: 1_000, ...(flagged ? { hints: { score: score + 1 } } : {}) };
          const response = await app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: (await fresh(eve)).headers, payload: { runId, payload } });
          expect(response.statusCode).toBe(200);
          clock.advance(1_000);
        };
        await submit('run-0001', 50, false);
        await submit('run-0002', 90, true);
        await submit('run-0003', 30, true);
        const flagged = (await app.runs.list({ gameId: game.id, playerId: eve.id, status: 'flagged', limit: 10 })).runs;
        const idOf = (runId: string) => flagged.find((r) => r.runId === runId)!.id;
        const scoresOf = async () => {
          const headers = (await fresh(eve)).headers;
          const seen: Record<string, number | null> = {};
          for (const [board, periods] of [['high', ['all', 'daily', 'weekly', 'monthly']], ['latest', ['all']], ['total', ['all', 'weekly']]] as const) {
            for (const period of periods) seen[`${board}/${period}`] = (await getJson(app, `/v1/games/${game.id}/leaderboards/${board}/me?period=${period}`, headers)).body.entry?.score ?? null;
          }
          return seen;
        };
        const everywhere = (high: number, latest: number, total: number) => ({
          'high/all': high, 'high/daily': high, 'high/weekly': high, 'high/monthly': high, 'latest/all': latest, 'total/all': total, 'total/weekly': total,
        });
        expect(await scoresOf()).toEqual(everywhere(90, 30, 170));

        const kept = await app.moderation.reviewRun(game.id, idOf('run-0003'), 'kept', operator);
        expect(kept).toMatchObject({ action: 'review-run', before: { status: 'flagged', review: null }, after: { status: 'flagged', review: 'kept' } });
        expect(await scoresOf()).toEqual(everywhere(90, 30, 170));
        await expect(app.moderation.reviewRun(game.id, idOf('run-0003'), 'rejected', operator)).rejects.toMatchObject({ code: 'run-not-reviewable' });

        const rejected = await app.moderation.reviewRun(game.id, idOf('run-0002'), 'rejected', operator);
        expect(rejected.after).toMatchObject({ status: 'rejected', review: 'rejected' });
        // The best falls back to r1; the latest stays r3; the sum loses r2's 90.
        expect(await scoresOf()).toEqual(everywhere(50, 30, 80));
        await expectEngineAgrees(app);
        // Resubmitted, the rejected run answers as a refused one.
        const again = await app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: (await fresh(eve)).headers, payload: { runId: 'run-0002', payload: { score: 90, durationMs: 1_000, hints: { score: 91 } } } });
        expect(again.statusCode).toBe(422);
        await expect(app.moderation.reviewRun(game.id, idOf('run-0002'), 'kept', operator)).rejects.toMatchObject({ code: 'run-not-reviewable' });

        // The latest goes back to the run before; with no run left, the entries go.
        await submit('run-0004', 20, true);
        const r4 = (await app.runs.list({ gameId: game.id, playerId: eve.id, status: 'flagged', limit: 1 })).runs[0]!;
        expect(await scoresOf()).toEqual(everywhere(50, 20, 100));
        await app.moderation.reviewRun(game.id, r4.id, 'rejected', operator);
        expect(await scoresOf()).toEqual(everywhere(50, 30, 80));
        await expectEngineAgrees(app);
      });
    });
  }
});
