import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { AdminBrowser } from './support/admin-browser-session.js';
import { FakeGoogle } from './support/fake-google.js';
import { bearer, devSignIn, galaxyGame, manifestWith, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const password = 'correct horse battery';
const protectedPages = ['/admin/', '/admin/games', '/admin/games/demo', '/admin/games/demo/runs', '/admin/manifest', '/admin/adapters', '/admin/health'];
const protectedPosts = ['/admin/manifest', '/admin/invitations', '/admin/logout'];

describeEachDatabase('admin pages', (database) => {
  let app: App;
  let google: FakeGoogle;
  const clock = new ManualClock('2026-11-21T10:00:00.000Z');
  const admin = () => new AdminBrowser(app);
  let first: AdminBrowser;

  beforeAll(async () => {
    google = await FakeGoogle.start();
    app = await buildTestApp(database(), { ...google.env }, { clock, secrets: { GALAXY_GOOGLE_CLIENT_SECRET: 'galaxy-secret' } });
    first = admin();
    const registered = await first.register({ email: 'Ops@Example.com', name: 'Ops', password });
    expect(registered.statusCode).toBe(303);
  });
  afterAll(async () => {
    await app.close();
    await google.stop();
  });

  describe('signed out', () => {
    it.each(protectedPages)('GET %s redirects to the sign-in page and back', async (path) => {
      const response = await admin().get(path);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/admin/login?next=${encodeURIComponent(path)}`);
    });

    it('does not carry an address too long for a Location header back to the sign-in page', async () => {
      const response = await admin().get(`/admin/games?filter=${'x'.repeat(100_000)}`);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/admin/login');
    });

    it.each(protectedPages)('GET %s as JSON answers 401 unauthorized', async (path) => {
      const response = await admin().get(path, 'application/json');
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    });

    it.each(protectedPosts)('POST %s answers 401 unauthorized', async (path) => {
      const response = await admin().post(path, { manifest: '{}', email: 'x@example.com' }, { csrf: 'anything' });
      expect(response.statusCode).toBe(401);
    });
  });

  describe('accounts', () => {
    it('registered the first administrator freely, with a session cookie that is HttpOnly and SameSite=Lax', async () => {
      const browser = admin();
      await browser.get('/admin/register');
      const response = await browser.post('/admin/register', { email: 'someone@example.com', name: 'Someone', password });
      // After the first administrator, registration needs an invitation.
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('invitation');

      const fresh = admin();
      const login = await fresh.login('ops@example.com', password);
      expect(login.statusCode).toBe(303);
      expect(login.headers.location).toBe('/admin/');
      const cookie = login.cookies.find((c) => c.name === 'admin_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(cookie.secure).toBeFalsy();
    });

    it('gives the session cookie the Secure attribute behind HTTPS', async () => {
      const browser = admin();
      await browser.get('/admin/login');
      const response = await browser.post('/admin/login', { email: 'ops@example.com', password }, { headers: { 'x-forwarded-proto': 'https' } });
      expect(response.statusCode).toBe(303);
      // TRUST_PROXY is off in this app, so the forwarded header is ignored: not Secure.
      expect(response.cookies.find((c) => c.name === 'admin_session')!.secure).toBeFalsy();
    });

    it('answers a wrong password and an unknown email the same way', async () => {
      const wrong = await admin().login('ops@example.com', 'not the password at all');
      const unknown = await admin().login('nobody@example.com', 'not the password at all');
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.body.replace(/value="[^"]*"/g, '')).toBe(unknown.body.replace(/value="[^"]*"/g, ''));
    });

    it('registers a second administrator with a single-use invitation', async () => {
      await first.get('/admin/');
      const created = await first.post('/admin/invitations', { email: 'second@example.com' }, { accept: 'application/json' });
      expect(created.statusCode).toBe(201);
      const { token, email } = created.json();
      expect(email).toBe('second@example.com');

      const second = admin();
      expect((await second.register({ email: 'second@example.com', name: 'Second', password, invitation: token })).statusCode).toBe(303);
      expect((await second.get('/admin/games')).statusCode).toBe(200);

      const third = admin();
      const reused = await third.register({ email: 'third@example.com', name: 'Third', password, invitation: token });
      expect(reused.statusCode).toBe(403);
    });

    it('refuses an expired invitation', async () => {
      await first.get('/admin/');
      const { token } = (await first.post('/admin/invitations', { email: 'late@example.com' }, { accept: 'application/json' })).json();
      clock.advance(73 * 3_600_000);
      try {
        const late = admin();
        expect((await late.register({ email: 'late@example.com', name: 'Late', password, invitation: token })).statusCode).toBe(403);
      } finally {
        clock.advance(-73 * 3_600_000);
      }
    });

    it('stores passwords and invitation tokens only as hashes', async () => {
      const users = await app.database.db.selectFrom('accounts').selectAll().execute();
      for (const user of users) {
        expect(user.password_hash).toMatch(/^\$argon2id\$/);
        expect(JSON.stringify(user)).not.toContain(password);
      }
      const invitations = await app.database.db.selectFrom('account_invitations').select('token_hash').execute();
      for (const invitation of invitations) expect(invitation.token_hash).toMatch(/^[A-Za-z0-9_-]{43}$|^[0-9a-f]{64}$/);
    });

    it('signs out: the session ends on the server', async () => {
      const browser = admin();
      await browser.login('ops@example.com', password);
      const stolenCookie = browser.cookieHeader;
      await browser.get('/admin/');
      expect((await browser.post('/admin/logout', {})).statusCode).toBe(303);
      const replay = await app.inject({ method: 'GET', url: '/admin/', headers: { cookie: stolenCookie, accept: 'application/json' } });
      expect(replay.statusCode).toBe(401);
    });
  });

  describe('CSRF', () => {
    it.each([
      ['without a token', null],
      ['with a wrong token', 'not-the-token'],
    ])('refuses a state-changing POST %s with 403 csrf-failed', async (_label, csrf) => {
      await first.get('/admin/manifest');
      const response = await first.post('/admin/invitations', { email: 'x@example.com' }, { csrf, accept: 'application/json' });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('csrf-failed');
    });

    it('refuses a cross-site POST even with the right token', async () => {
      await first.get('/admin/');
      const response = await first.post('/admin/invitations', { email: 'x@example.com' }, { accept: 'application/json', headers: { 'sec-fetch-site': 'cross-site' } });
      expect(response.statusCode).toBe(403);
    });

    it('refuses a sign-in POST without the form token', async () => {
      const response = await admin().post('/admin/login', { email: 'ops@example.com', password }, { csrf: null });
      expect(response.statusCode).toBe(403);
    });

    it('puts a CSRF token in every form', async () => {
      for (const path of ['/admin/', '/admin/manifest']) {
        const page = await first.get(path);
        const forms = page.body.match(/<form method="post"[\s\S]*?<\/form>/g) ?? [];
        expect(forms.length).toBeGreaterThan(0);
        for (const form of forms) expect(form).toContain('name="_csrf"');
      }
    });
  });

  describe('pages', () => {
    it('send security headers', async () => {
      const page = await first.get('/admin/games');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    });

    it('load no external resources', async () => {
      for (const path of protectedPages) {
        const page = await first.get(path);
        expect(page.statusCode).toBe(200);
        expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
      }
    });

    it('answer Accept: application/json with their data', async () => {
      const overview = (await first.get('/admin/', 'application/json')).json();
      expect(overview).toMatchObject({ games: 2, health: { ready: true } });
      const games = (await first.get('/admin/games', 'application/json')).json();
      expect(games.games.map((g: { id: string }) => g.id)).toContain('demo');
      const game = (await first.get('/admin/games/demo', 'application/json')).json();
      expect(game.boards.map((b: { id: string }) => b.id)).toEqual(['high-score', 'total-score', 'fastest']);
      const adapters = (await first.get('/admin/adapters', 'application/json')).json();
      expect(adapters.adapters.find((a: { id: string }) => a.id === 'bounded-score').usedBy).toContainEqual({ gameId: 'demo', adapterId: 'score' });
      const health = (await first.get('/admin/health', 'application/json')).json();
      expect(health).toMatchObject({ ready: true, database: database().dialect, version: { apiVersion: '0.1.0' } });
      const manifest = (await first.get('/admin/manifest', 'application/json')).json();
      expect(manifest.current.manifest.games.map((g: { id: string }) => g.id)).toContain('demo');
    });

    it('answer an unknown game with 404 game-not-found', async () => {
      const response = await first.get('/admin/games/nope', 'application/json');
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('game-not-found');
    });

    it('refuse an unknown run status filter with 400', async () => {
      const response = await first.get('/admin/games/demo/runs?status=weird', 'application/json');
      expect(response.statusCode).toBe(400);
    });
  });

  describe('manifest', () => {
    it('shows every problem of a refused manifest next to the submitted text, and stores nothing', async () => {
      const before = (await first.get('/admin/manifest', 'application/json')).json().versions.length;
      await first.get('/admin/manifest');
      const broken = JSON.stringify({ games: [{ id: 'x', name: '', auth: { provider: 'dev' }, adapters: {}, boards: [] }] }, null, 2);
      const response = await first.post('/admin/manifest', { manifest: broken });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('not saved');
      expect(response.body).toContain('&quot;id&quot;: &quot;x&quot;');
      expect((response.body.match(/<li><code>/g) ?? []).length).toBeGreaterThanOrEqual(2);
      expect((await first.get('/admin/manifest', 'application/json')).json().versions.length).toBe(before);
    });

    it('reports invalid JSON without losing the text', async () => {
      await first.get('/admin/manifest');
      const response = await first.post('/admin/manifest', { manifest: '{"games": [' });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('not valid JSON');
      expect(response.body).toContain('{&quot;games&quot;: [');
    });

    it('stores a valid manifest as a new version and serves its games', async () => {
      await first.get('/admin/manifest');
      const manifest = manifestWith({ ...galaxyGame, id: 'nebula', name: 'Nebula' });
      const response = await first.post('/admin/manifest', { manifest: JSON.stringify(manifest) });
      expect(response.statusCode).toBe(201);
      expect(response.body).toContain('Saved as version');
      const games = (await first.get('/admin/games', 'application/json')).json();
      expect(games.games.map((g: { id: string }) => g.id)).toContain('nebula');
      const history = (await first.get('/admin/manifest', 'application/json')).json();
      expect(history.versions[0].author).toBe('ops@example.com');
    });
  });

  describe('runs and player names', () => {
    it('shows submitted runs with their evidence and result, filtered by status and player', async () => {
      const player = await devSignIn(app, 'demo', 'runner');
      for (const [runId, score] of [['run-00000001', 100], ['run-00000002', 250]] as const) {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/games/demo/runs/score',
          headers: bearer(player.accessToken),
          payload: { runId, payload: { score, durationMs: 60_000 } },
        });
        expect(response.statusCode).toBe(200);
      }
      const rejected = await app.inject({
        method: 'POST',
        url: '/v1/games/demo/runs/score',
        headers: bearer(player.accessToken),
        payload: { runId: 'run-00000003', payload: { score: 999_999_999, durationMs: 1 } },
      });
      expect(rejected.statusCode).toBe(422);

      const all = (await first.get('/admin/games/demo/runs', 'application/json')).json();
      expect(all.runs.map((r: { runId: string }) => r.runId)).toEqual(['run-00000003', 'run-00000002', 'run-00000001']);
      const onlyRejected = (await first.get('/admin/games/demo/runs?status=rejected', 'application/json')).json();
      expect(onlyRejected.runs.map((r: { status: string }) => r.status)).toEqual(['rejected']);
      const byOther = (await first.get('/admin/games/demo/runs?player=someone-else', 'application/json')).json();
      expect(byOther.runs).toEqual([]);

      const page = await first.get('/admin/games/demo/runs');
      expect(page.body).toContain('&quot;score&quot;: 250');
      expect(page.body).toContain('badge rejected');
      const overview = (await first.get('/admin/', 'application/json')).json();
      expect(overview.runsToday).toBeGreaterThanOrEqual(3);
      expect(overview.players).toBeGreaterThanOrEqual(1);
    });

    it('shows an event board\'s window, its state and its entries, period event picked from the list', async () => {
      const cup = {
        ...galaxyGame,
        id: 'cupgame',
        name: 'Cup game',
        auth: { provider: 'dev' as const },
        boards: [
          {
            id: 'cup',
            name: 'Cup',
            order: 'desc' as const,
            operator: 'best' as const,
            periods: ['all' as const, 'event' as const],
            source: galaxyGame.boards[0]!.source,
            event: { startsAt: '2026-11-21T08:00:00Z', endsAt: '2026-11-22T08:00:00Z' },
          },
        ],
      };
      await storeManifest(app, manifestWith(cup));
      const session = await devSignIn(app, 'cupgame', 'racer');
      const submitted = await app.inject({ method: 'POST', url: '/v1/games/cupgame/runs/score', headers: bearer(session.accessToken), payload: { runId: 'cup-run-1', payload: { score: 7, durationMs: 10_000 } } });
      expect(submitted.json().notScored).toEqual([]);
      const game = (await first.get('/admin/games/cupgame?period=event', 'application/json')).json();
      expect(game.boards[0]).toMatchObject({
        period: 'event',
        periodKey: '2026-11-21T08:00Z',
        event: { startsAt: '2026-11-21T08:00:00.000Z', endsAt: '2026-11-22T08:00:00.000Z', state: 'live' },
        entries: [{ rank: 1, displayName: 'racer', score: 7 }],
      });
      const page = await first.get('/admin/games/cupgame?period=event');
      expect(page.body).toContain('<option value="event" selected>event</option>');
      expect(page.body).toContain('Period 2026-11-21T08:00Z, live: <time datetime="2026-11-21T08:00:00.000Z"');
    });

    it("shows scores in their board's format and unit, the stored number on hover", async () => {
      const source = { adapter: 'score', value: 'score' };
      const timed = {
        ...galaxyGame,
        id: 'timed',
        name: 'Timed',
        auth: { provider: 'dev' as const },
        boards: [
          { id: 'points', name: 'Points', order: 'desc' as const, operator: 'best' as const, periods: ['all' as const], source, unit: 'pts' },
          { id: 'lap', name: 'Lap', order: 'asc' as const, operator: 'best' as const, periods: ['all' as const], source: { adapter: 'score', value: 'durationMs' }, format: 'duration-ms' as const },
        ],
      };
      await storeManifest(app, manifestWith(galaxyGame, timed));
      const player = await devSignIn(app, 'timed', 'lapper');
      const run = await app.inject({ method: 'POST', url: '/v1/games/timed/runs/score', headers: bearer(player.accessToken), payload: { runId: 'lap-run-1', payload: { score: 12_345, durationMs: 62_345 } } });
      expect(run.statusCode).toBe(200);
      const page = await first.get('/admin/games/timed');
      expect(page.body).toContain('<span title="12345">12,345 pts</span>');
      expect(page.body).toContain('<span title="62345">1:02.345</span>');
      expect(page.body).toContain('lap · asc · best · duration-ms');
      const board = await app.inject({ method: 'GET', url: '/v1/games/timed/leaderboards/lap', headers: bearer(player.accessToken) });
      expect(board.json()).toMatchObject({ format: 'duration-ms', entries: [{ score: 62_345 }] });
      expect(board.json()).not.toHaveProperty('unit');
      const me = await app.inject({ method: 'GET', url: '/v1/games/timed/leaderboards/points/me', headers: bearer(player.accessToken) });
      expect(me.json()).toMatchObject({ format: 'integer', unit: 'pts', entry: { score: 12_345 } });
      const around = await app.inject({ method: 'GET', url: '/v1/games/timed/leaderboards/points/around-me', headers: bearer(player.accessToken) });
      expect(around.json()).toMatchObject({ format: 'integer', unit: 'pts' });
      const playerPage = await first.get(`/admin/games/timed/players/${player.player.id}`);
      expect(playerPage.body).toContain('1:02.345');
    });

    it('shows a player name containing <script> escaped', async () => {
      await storeManifest(app, manifestWith(galaxyGame));
      const evil = '<script>alert(1)</script>';
      google.addPlayer({ code: 'evil-code', playerId: 'g-evil', displayName: evil, applicationId: '123456789012' });
      const exchange = await app.inject({ method: 'POST', url: '/v1/games/galaxy/auth/exchange', payload: { authorizationCode: 'evil-code' } });
      expect(exchange.statusCode).toBe(200);
      const submitted = await app.inject({
        method: 'POST',
        url: '/v1/games/galaxy/runs/score',
        headers: bearer(exchange.json().accessToken),
        payload: { runId: 'evil-run-1', payload: { score: 5, durationMs: 10_000 } },
      });
      expect(submitted.statusCode).toBe(200);
      const page = await first.get('/admin/games/galaxy');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.body).not.toContain(evil);
    });
  });
});
