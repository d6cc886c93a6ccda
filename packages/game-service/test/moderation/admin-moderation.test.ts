import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { AdminBrowser } from '../support/admin-browser-session.js';
import { bearer, devSignIn, manifestWith, storeManifest, type Session } from '../support/identity-fixtures.js';
import { buildTestApp } from '../support/test-app.js';
import { arenaGame, unthrottled } from '../leaderboards/leaderboard-fixtures.js';

const password = 'correct horse battery';
const game = arenaGame('modarena');
const json = 'application/json';

describeEachDatabase('admin moderation pages', (database) => {
  let app: App;
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  let ops: AdminBrowser;
  let mallory: Session;
  let trent: Session;
  const playerPage = (session: Session) => `/admin/games/${game.id}/players/${session.player.id}`;

  async function submit(session: Session, runId: string, score: number, flagged = false): Promise<void> {
    const payload = { score, durationMs: 10_000, ...(flagged ? { hints: { score: score - 1 } } : {}) };
    const response = await app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: bearer(session.accessToken), payload: { runId, payload } });
    expect(response.statusCode).toBe(200);
    clock.advance(1_000);
  }

  async function topOfHigh(): Promise<string[]> {
    const response = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high`, headers: bearer(trent.accessToken) });
    return (response.json() as { entries: Array<{ displayName: string }> }).entries.map((e) => e.displayName);
  }

  beforeAll(async () => {
    app = await buildTestApp(database(), unthrottled, { clock });
    await storeManifest(app, manifestWith(game));
    ops = new AdminBrowser(app);
    expect((await ops.register({ email: 'ops@example.com', name: 'Ops', password })).statusCode).toBe(303);
    mallory = await devSignIn(app, game.id, 'Mallory');
    trent = await devSignIn(app, game.id, 'Trent');
    await submit(mallory, 'mallory-1', 900, true);
    await submit(trent, 'trent-0001', 500);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('signed out and forged requests', () => {
    it.each(['/admin/players?q=x', '/admin/audit', `/admin/games/${game.id}/players/someone`])('GET %s as JSON answers 401', async (path) => {
      expect((await new AdminBrowser(app).get(path, json)).statusCode).toBe(401);
    });

    it.each(['hide', 'unhide', 'revoke-sessions', 'erase'])('POST …/%s signed out answers 401 and changes nothing', async (action) => {
      const response = await new AdminBrowser(app).post(`/admin/games/${game.id}/players/${'x'.repeat(8)}/${action}`, { reason: 'r' }, { csrf: 'forged' });
      expect(response.statusCode).toBe(401);
    });

    it('refuses an action without the session CSRF token', async () => {
      await ops.get('/admin/players');
      const response = await ops.post(`${playerPage(mallory)}/hide`, { reason: 'cheating' }, { csrf: 'not-the-token', accept: json });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('csrf-failed');
      expect(await topOfHigh()).toEqual(['Mallory', 'Trent']);
    });
  });

  describe('finding a player', () => {
    it.each([
      ['display name part', 'allor'],
      ['provider identity', 'Mallory'],
    ])('by %s', async (_, q) => {
      const response = await ops.get(`/admin/players?q=${encodeURIComponent(q)}&game=${game.id}`, json);
      expect(response.statusCode).toBe(200);
      expect(response.json().players).toMatchObject([{ id: mallory.player.id, gameId: game.id, displayName: 'Mallory', provider: 'dev', providerSubject: 'Mallory' }]);
    });

    it('by id, linked to the player page, with humanized times and ISO on hover', async () => {
      const response = await ops.get(`/admin/players?q=${mallory.player.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain(`<a href="${playerPage(mallory)}" title="${mallory.player.id}">Mallory</a>`);
      expect(response.body).toMatch(/<time datetime="2026-11-21T10:00:0\d\.000Z" title="2026-11-21T10:00:0\d\.000Z">\d+ s ago<\/time>/);
    });

    it('shows the player page: sessions, runs with flags, entries on every board and period with ranks', async () => {
      const view = (await ops.get(playerPage(mallory), json)).json();
      expect(view.player).toMatchObject({ id: mallory.player.id, displayName: 'Mallory' });
      expect(view.hiding).toBeNull();
      expect(view.sessions).toMatchObject([{ revokedAt: null }]);
      expect(view.runs).toMatchObject([{ runId: 'mallory-1', status: 'flagged', review: null, hintMismatches: [{ name: 'score' }] }]);
      expect(view.entries.map((e: { boardId: string; period: string; rank: number }) => `${e.boardId}/${e.period}#${e.rank}`).sort()).toEqual(
        ['fastest/2026-11-21#1', 'fastest/all#1', 'high/2026-11#1', 'high/2026-11-21#1', 'high/2026-W47#1', 'high/all#1', 'latest/all#1', 'total/2026-W47#1', 'total/all#1'],
      );
      const page = await ops.get(playerPage(mallory));
      expect(page.body).toContain('Hide from every board');
      expect(page.body).toContain('name="decision" value="rejected"');
    });

    it('answers 404 for an unknown player', async () => {
      const response = await ops.get(`/admin/games/${game.id}/players/nobody`, json);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('player-not-found');
    });
  });

  describe('actions, each in the audit log', () => {
    it('hide (shadow, until a time) and unhide through the forms, with the board changing and coming back', async () => {
      const hidden = await ops.post(`${playerPage(mallory)}/hide`, { reason: 'impossible score', shadow: 'yes', until: '2026-11-28T10:00' });
      expect(hidden.statusCode).toBe(200);
      expect(hidden.body).toContain('Hidden from every board (shadow mode).');
      expect(hidden.body).toContain('hidden (shadow)');
      expect(await topOfHigh()).toEqual(['Trent']);
      const view = (await ops.get(playerPage(mallory), json)).json();
      expect(view.hiding).toMatchObject({ shadow: true, hiddenUntil: Date.parse('2026-11-28T10:00:00Z') });
      expect(view.entries.every((e: { rank: number | null; hidden: boolean }) => e.hidden && e.rank === null)).toBe(true);

      const again = await ops.post(`${playerPage(trent)}/unhide`, { reason: 'oops' });
      expect(again.statusCode).toBe(409);
      expect(again.body).toContain('is not hidden');

      const unhidden = await ops.post(`${playerPage(mallory)}/unhide`, { reason: 'appeal accepted' });
      expect(unhidden.statusCode).toBe(200);
      expect(await topOfHigh()).toEqual(['Mallory', 'Trent']);
    });

    it('refuses an empty reason or an unreadable end time', async () => {
      const refused: Array<Record<string, string>> = [{ reason: '  ' }, { reason: 'x', until: 'next tuesday' }, { reason: 'x'.repeat(501) }];
      for (const fields of refused) {
        const response = await ops.post(`${playerPage(mallory)}/hide`, fields, { accept: json });
        expect(response.statusCode).toBe(400);
      }
      expect(await topOfHigh()).toEqual(['Mallory', 'Trent']);
    });

    it('review: keep is recorded; a second review is refused', async () => {
      const [run] = (await ops.get(playerPage(mallory), json)).json().runs;
      const kept = await ops.post(`/admin/games/${game.id}/runs/${run.id}/review`, { decision: 'kept', reason: 'checked the replay' }, { accept: json });
      expect(kept.statusCode).toBe(200);
      expect(kept.json().audit).toMatchObject({ action: 'review-run', after: { review: 'kept' } });
      const twice = await ops.post(`/admin/games/${game.id}/runs/${run.id}/review`, { decision: 'rejected', reason: 'changed my mind' }, { accept: json });
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error.code).toBe('run-not-reviewable');
    });

    it('review: reject withdraws the run from the boards', async () => {
      await submit(mallory, 'mallory-2', 9_000, true);
      expect(await topOfHigh()).toEqual(['Mallory', 'Trent']);
      const runs = (await ops.get(playerPage(mallory), json)).json().runs;
      const rejected = await ops.post(`/admin/games/${game.id}/runs/${runs[0].id}/review`, { decision: 'rejected', reason: 'speed hack' });
      expect(rejected.statusCode).toBe(200);
      expect(rejected.body).toContain('rejected: its scores are withdrawn');
      const high = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high`, headers: bearer(trent.accessToken) });
      expect(high.json().entries[0]).toMatchObject({ displayName: 'Mallory', score: 900 });
    });

    it('remove one entry', async () => {
      const removed = await ops.post(`${playerPage(mallory)}/entries/remove`, { boardId: 'high', period: 'all', reason: 'bad entry' }, { accept: json });
      expect(removed.statusCode).toBe(200);
      expect(removed.json().audit).toMatchObject({ action: 'remove-entry', before: { boardId: 'high', period: 'all', score: 900 }, after: null });
      expect(await topOfHigh()).toEqual(['Trent']);
    });

    it('revoke sessions: the refresh token and access token stop working; a new sign-in works', async () => {
      const revoked = await ops.post(`${playerPage(mallory)}/revoke-sessions`, { reason: 'account shared' }, { accept: json });
      expect(revoked.json().audit).toMatchObject({ action: 'revoke-sessions', before: { liveSessions: 1 }, after: { liveSessions: 0 } });
      const me = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high/me`, headers: bearer(mallory.accessToken) });
      expect(me.statusCode).toBe(401);
      const refresh = await app.inject({ method: 'POST', url: `/v1/games/${game.id}/auth/refresh`, payload: { refreshToken: mallory.refreshToken } });
      expect(refresh.statusCode).toBe(401);
      mallory = await devSignIn(app, game.id, 'Mallory');
      const meAgain = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high/me`, headers: bearer(mallory.accessToken) });
      expect(meAgain.statusCode).toBe(200);
    });

    it('erase: the same erasure as DELETE /player, then the audit page', async () => {
      const refused = await ops.post(`${playerPage(mallory)}/erase`, { reason: 'GDPR request', confirm: 'no' }, { accept: json });
      expect(refused.statusCode).toBe(400);
      const erased = await ops.post(`${playerPage(mallory)}/erase`, { reason: 'GDPR request', confirm: 'yes' });
      expect(erased.statusCode).toBe(303);
      expect(erased.headers.location).toBe(`/admin/audit?game=${game.id}&player=${mallory.player.id}`);
      expect((await ops.get(playerPage(mallory), json)).statusCode).toBe(404);
      expect(await topOfHigh()).toEqual(['Trent']);

      const audit = (await ops.get(`/admin/audit?game=${game.id}&player=${mallory.player.id}`, json)).json();
      expect(audit.entries.map((e: { action: string }) => e.action)).toEqual(['erase', 'revoke-sessions', 'remove-entry', 'review-run', 'review-run', 'unhide', 'hide']);
      for (const entry of audit.entries) expect(entry).toMatchObject({ actor: 'ops@example.com', gameId: game.id, playerId: mallory.player.id });
      expect(audit.entries[0]).toMatchObject({ reason: 'GDPR request', before: null, after: { deleted: { runs: 2, sessions: 2 } } });
      expect(audit.entries.at(-1)).toMatchObject({ reason: 'impossible score', before: { hidden: false }, after: { hidden: true, shadow: true, until: '2026-11-28T10:00:00.000Z' } });

      const page = await ops.get(`/admin/audit?game=${game.id}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('(erased)');
      expect(page.body).toContain('GDPR request');
    });
  });
});
