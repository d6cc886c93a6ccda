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

describeEachDatabase('the manifest diff, version history and rollback', (database) => {
  let app: App;
  let admin: AdminBrowser;
  const json = { accept: 'application/json' };
  const versions = async () => (await admin.get('/admin/manifest', 'application/json')).json().versions as Array<{ version: number; author: string; changes: string[] }>;
  const postJson = (url: string, body: unknown, csrf: string | null = admin.csrfToken) =>
    app.inject({ method: 'POST', url, headers: { ...json, cookie: admin.cookieHeader, ...(csrf === null ? {} : { 'x-csrf-token': csrf }) }, payload: body as object });
  const renamedBonus: GameDefinition = { ...arcade, boards: [arcade.boards[0]!, { ...arcade.boards[1]!, name: 'Bonus points' }] };
  let withoutBonus: number;
  let withBonus: number;

  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000' });
    admin = new AdminBrowser(app);
    await admin.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' });
    await storeManifest(app, manifestWith(withoutBonusAdapter));
    withoutBonus = app.games.current.version!;
    await storeManifest(app, manifestWith(arcade));
    withBonus = app.games.current.version!;
    // Data on the bonus board and adapter, so a version without them orphans it.
    const player = await devSignIn(app, 'arcade', 'ann');
    const run = await app.inject({ method: 'POST', url: '/v1/games/arcade/runs/bonus', headers: bearer(player.accessToken), payload: { runId: 'ann-bonus-1', payload: { score: 10, durationMs: 60_000 } } });
    expect(run.statusCode).toBe(200);
    await admin.get('/admin/manifest');
  });
  afterAll(async () => {
    await app.close();
  });

  it('previews a change as a line diff of the sorted JSON against the newest version, storing nothing (JSON)', async () => {
    const before = await versions();
    const response = await postJson('/admin/manifest', { manifest: manifestWith(renamedBonus), preview: true });
    expect(response.statusCode).toBe(200);
    const { against, diff, orphans } = response.json();
    expect(against).toBe(withBonus);
    expect(orphans).toEqual([]);
    expect(diff).toMatchObject({ added: 1, removed: 1 });
    expect(diff.hunks).toHaveLength(1);
    const changed = diff.hunks[0].lines.filter((line: string) => !line.startsWith(' '));
    expect(changed).toEqual(['-          "name": "Bonus",', '+          "name": "Bonus points",']);
    expect(diff.hunks[0].lines.length).toBe(2 + 6);
    expect(await versions()).toEqual(before);
  });

  it('shows no change for the same manifest with its members in another order', async () => {
    const reversed = JSON.parse(JSON.stringify(manifestWith(arcade), (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value,
    )) as Manifest;
    const response = await postJson('/admin/manifest', { manifest: reversed, preview: true });
    expect(response.json().diff).toEqual({ added: 0, removed: 0, hunks: [] });
  });

  it('previews on the form: the diff above the submitted text, what it would orphan, and nothing saved', async () => {
    const before = await versions();
    const text = JSON.stringify(manifestWith(withoutBonusAdapter), null, 2);
    const page = await admin.post('/admin/manifest', { manifest: text, preview: 'yes' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Not saved yet');
    expect(page.body).toContain(`From version ${withBonus} to this text`);
    expect(page.body).toMatch(/<span class="del">-\s+&quot;bonus&quot;: \{<\/span>/);
    expect(page.body).toContain('Saving it would orphan');
    expect(page.body).toContain('adapter &quot;arcade/bonus&quot; (1 run)');
    expect(page.body).toContain('name="confirm"');
    expect(page.body).toContain('&quot;high-score&quot;');
    expect(await versions()).toEqual(before);
  });

  it('shows the diff with the orphan confirmation when saving straight away', async () => {
    const page = await admin.post('/admin/manifest', { manifest: JSON.stringify(manifestWith(withoutBonusAdapter)) });
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('adapter &quot;arcade/bonus&quot; (1 run)');
    expect(page.body).toContain('<pre class="diff"');
  });

  it('refuses to preview an invalid manifest with every problem', async () => {
    const response = await postJson('/admin/manifest', { manifest: { games: 'no' }, preview: true });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid-manifest');
    const page = await admin.post('/admin/manifest', { manifest: '{"games": [', preview: 'yes' });
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('not valid JSON');
  });

  it('shows a stored version with its document and what rolling back to it changes; 404 for none, 400 for no number', async () => {
    const view = (await admin.get(`/admin/manifest/versions/${withoutBonus}`, 'application/json')).json();
    expect(view).toMatchObject({ version: { version: withoutBonus, author: 'test' }, against: withBonus, document: manifestWith(withoutBonusAdapter) });
    expect(view.diff.added).toBe(0);
    expect(view.diff.removed).toBeGreaterThan(0);
    const page = await admin.get(`/admin/manifest/versions/${withoutBonus}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`Roll back to version ${withoutBonus}`);
    expect(page.body).toContain(`action="/admin/manifest/versions/${withoutBonus}/rollback"`);
    const newest = await admin.get(`/admin/manifest/versions/${withBonus}`);
    expect(newest.body).toContain('nothing to roll back to');
    const missing = await admin.get('/admin/manifest/versions/999', 'application/json');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('manifest-version-not-found');
    expect((await admin.get('/admin/manifest/versions/latest', 'application/json')).statusCode).toBe(400);
    expect((await postJson('/admin/manifest/versions/999/rollback', {})).statusCode).toBe(404);
  });

  it('lists every version in the history with a link to it and a one-click rollback for all but the served one', async () => {
    const page = await admin.get('/admin/manifest');
    expect(page.body).toContain(`href="/admin/manifest/versions/${withoutBonus}"`);
    expect(page.body).toContain(`action="/admin/manifest/versions/${withoutBonus}/rollback"`);
    expect(page.body).not.toContain(`action="/admin/manifest/versions/${withBonus}/rollback"`);
  });

  it('rolls back only with the orphan confirmation, like any new manifest, then stores the old document as a new version (form)', async () => {
    const before = await versions();
    const refused = await admin.post(`/admin/manifest/versions/${withoutBonus}/rollback`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('adapter &quot;arcade/bonus&quot; (1 run)');
    expect(refused.body).toContain('name="confirm"');
    expect(await versions()).toEqual(before);
    expect((await postJson(`/admin/manifest/versions/${withoutBonus}/rollback`, {})).statusCode).toBe(409);

    const confirmed = await admin.post(`/admin/manifest/versions/${withoutBonus}/rollback`, { confirm: 'yes' });
    expect(confirmed.statusCode).toBe(201);
    expect(confirmed.body).toContain(`Saved as version ${withBonus + 1}`);
    const [latest] = await versions();
    expect(latest).toMatchObject({ version: withBonus + 1, author: 'ops@example.com' });
    expect(latest!.changes[0]).toBe(`rolled back to version ${withoutBonus}`);
    expect(latest!.changes).toContain('removed adapter "arcade/bonus" (1 run), confirmed');
    const stored = (await admin.get(`/admin/manifest/versions/${withBonus + 1}`, 'application/json')).json();
    const old = (await admin.get(`/admin/manifest/versions/${withoutBonus}`, 'application/json')).json();
    expect(stored.document).toEqual(old.document);
    expect(app.games.current.version).toBe(withBonus + 1);
    expect(app.games.get('arcade')!.adapters).not.toHaveProperty('bonus');
  });

  it('rolls back as JSON: a new version equal to the old one (201), the newest again is unchanged (200)', async () => {
    const rolled = await postJson(`/admin/manifest/versions/${withBonus}/rollback`, {});
    expect(rolled.statusCode).toBe(201);
    const version = rolled.json().version.version as number;
    expect(rolled.json().version).toMatchObject({ author: 'ops@example.com', changes: [`rolled back to version ${withBonus}`, 'added board "arcade/bonus"', 'added adapter "arcade/bonus"'] });
    const stored = (await admin.get(`/admin/manifest/versions/${version}`, 'application/json')).json();
    expect(stored.document).toEqual(manifestWith(arcade));
    expect(app.games.get('arcade')!.adapters).toHaveProperty('bonus');
    const again = await postJson(`/admin/manifest/versions/${version}/rollback`, { confirm: true });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ unchanged: true, version: { version } });
  });

  it('refuses a rollback without the session’s CSRF token (403), or signed out (401), storing nothing', async () => {
    const before = await versions();
    for (const csrf of [null, 'forged']) {
      const response = await postJson(`/admin/manifest/versions/${withoutBonus}/rollback`, { confirm: true }, csrf);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('csrf-failed');
    }
    const signedOut = await app.inject({ method: 'POST', url: `/admin/manifest/versions/${withoutBonus}/rollback`, headers: json, payload: { confirm: true } });
    expect(signedOut.statusCode).toBe(401);
    expect(await versions()).toEqual(before);
  });
});
