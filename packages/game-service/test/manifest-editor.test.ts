import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { describeOrphan } from '../src/manifest/manifest-changes.js';
import type { GameDefinition, Manifest } from '../src/manifest/manifest-schema.js';
import { AdminBrowser } from './support/admin-browser-session.js';
import { bearer, devSignIn, manifestWith, otherGame, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

/** A game with two boards and two adapters, so one of each can go while the game stays. */
const arcade: GameDefinition = {
  id: 'arcade',
  name: 'Arcade',
  auth: { provider: 'dev' },
  adapters: { score: { type: 'bounded-score', options: {} }, bonus: { type: 'bounded-score', options: {} } },
  boards: [
    { id: 'high-score', name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'score' } },
    { id: 'bonus', name: 'Bonus', order: 'desc', operator: 'best', periods: ['all', 'daily'], source: { adapter: 'bonus', value: 'score' } },
  ],
};
const withoutBonusBoard: GameDefinition = { ...arcade, boards: [arcade.boards[0]!] };
const withoutBonusAdapter: GameDefinition = { ...withoutBonusBoard, adapters: { score: arcade.adapters.score! } };

describeEachDatabase('the manifest editor', (database) => {
  let app: App;
  let admin: AdminBrowser;
  const versions = async () => (await admin.get('/admin/manifest', 'application/json')).json().versions as Array<{ version: number; author: string; changes: string[] }>;
  const postJson = (body: unknown) =>
    app.inject({
      method: 'POST',
      url: '/admin/manifest',
      headers: { accept: 'application/json', cookie: admin.cookieHeader, 'x-csrf-token': admin.csrfToken },
      payload: body as object,
    });

  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000' });
    admin = new AdminBrowser(app);
    await admin.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' });
    await storeManifest(app, manifestWith(arcade, otherGame));
    // Data for arcade: two players, runs through both adapters, entries on both boards.
    for (const name of ['ann', 'bob']) {
      const player = await devSignIn(app, 'arcade', name);
      for (const [adapter, runId] of [['score', `${name}-score-1`], ['bonus', `${name}-bonus-1`]]) {
        const run = await app.inject({
          method: 'POST',
          url: `/v1/games/arcade/runs/${adapter}`,
          headers: bearer(player.accessToken),
          payload: { runId, payload: { score: 10, durationMs: 60_000 } },
        });
        expect(run.statusCode).toBe(200);
      }
    }
    await admin.get('/admin/manifest');
  });
  afterAll(async () => {
    await app.close();
  });

  it('does not store an identical document again, whatever the order of its members (JSON and form)', async () => {
    const before = await versions();
    const reordered = JSON.parse(JSON.stringify(manifestWith(arcade, otherGame), (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value,
    )) as Manifest;
    for (let again = 0; again < 7; again++) {
      const response = await postJson({ manifest: reordered });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ unchanged: true, version: { version: before[0]!.version } });
    }
    const form = await admin.post('/admin/manifest', { manifest: JSON.stringify(manifestWith(arcade, otherGame), null, 2) });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('Nothing to save');
    expect(await versions()).toEqual(before);
  });

  it('refuses to drop a board with entries until confirmed, saying what would be orphaned (JSON)', async () => {
    const before = await versions();
    const refused = await postJson({ manifest: manifestWith(withoutBonusBoard, otherGame) });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('conflict');
    expect(refused.json().error.message).toContain('board "arcade/bonus" (');
    expect(refused.json().error.message).toMatch(/\b4 entries\b/);
    expect(await versions()).toEqual(before);
    expect(app.games.get('arcade')!.boards).toHaveLength(2);

    const confirmed = await postJson({ manifest: manifestWith(withoutBonusBoard, otherGame), confirm: true });
    expect(confirmed.statusCode).toBe(201);
    expect(app.games.get('arcade')!.boards).toHaveLength(1);
    const [latest] = await versions();
    expect(latest).toMatchObject({ author: 'ops@example.com', changes: ['removed board "arcade/bonus" (4 entries), confirmed'] });
  });

  it('refuses to drop an adapter with runs until confirmed, and lists the orphans on the form', async () => {
    const text = JSON.stringify(manifestWith(withoutBonusAdapter, otherGame), null, 2);
    const refused = await admin.post('/admin/manifest', { manifest: text });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('adapter &quot;arcade/bonus&quot; (2 runs)');
    expect(refused.body).toContain('name="confirm"');
    expect(refused.body).toContain('&quot;high-score&quot;');
    expect(app.games.get('arcade')!.adapters).toHaveProperty('bonus');

    const confirmed = await admin.post('/admin/manifest', { manifest: text, confirm: 'yes' });
    expect(confirmed.statusCode).toBe(201);
    expect(app.games.get('arcade')!.adapters).not.toHaveProperty('bonus');
    expect((await versions())[0]!.changes).toEqual(['removed adapter "arcade/bonus" (2 runs), confirmed']);
  });

  it('refuses to drop a game with players, runs and entries until confirmed', async () => {
    const refused = await postJson({ manifest: manifestWith(otherGame) });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toContain('game "arcade" (2 players, 6 entries, 4 runs)');
    expect(app.games.get('arcade')).toBeDefined();
    const confirmed = await postJson({ manifest: manifestWith(otherGame), confirm: true });
    expect(confirmed.statusCode).toBe(201);
    expect(app.games.get('arcade')).toBeUndefined();
  });

  it('stores a change that orphans nothing without asking, and the history says who changed what', async () => {
    const response = await postJson({ manifest: manifestWith({ ...otherGame, name: 'Other, renamed' }) });
    expect(response.statusCode).toBe(201);
    const [latest] = await versions();
    expect(latest).toMatchObject({ author: 'ops@example.com', changes: ['renamed game "other" to "Other, renamed"'] });
    const page = await admin.get('/admin/manifest');
    expect(page.body).toContain('renamed game &quot;other&quot; to &quot;Other, renamed&quot;');
    expect(page.body).toContain('removed game &quot;arcade&quot; (2 players, 6 entries, 4 runs), confirmed');
  });
});

describe('what a change would orphan', () => {
  it('counts each kind of data, in the singular for one', () => {
    expect(describeOrphan({ part: { kind: 'game', gameId: 'old' }, data: { players: 1, runs: 12, entries: 0 } })).toBe('game "old" (1 player, 12 runs)');
    expect(describeOrphan({ part: { kind: 'board', gameId: 'old', boardId: 'b' }, data: { entries: 1 } })).toBe('board "old/b" (1 entry)');
  });
});
