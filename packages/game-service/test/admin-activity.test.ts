import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { runsPerHour } from '../src/runs/run-activity.js';
import { AdminBrowser } from './support/admin-browser-session.js';
import { bearer, devSignIn, manifestWith, otherGame, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const hourMs = 3_600_000;
const accepted = { score: 10, durationMs: 60_000 };
const flagged = { score: 10, durationMs: 60_000, hints: { score: 11 } };
const rejected = { score: -1, durationMs: 60_000 };

describeEachDatabase('the game page charts: runs per hour and status', (database) => {
  let app: App;
  let ops: AdminBrowser;
  const clock = new ManualClock('2026-11-25T00:00:00.000Z');
  let runNumber = 0;

  /** Submits one run to `gameId` at `iso`, as a player signed in then. */
  async function runAt(iso: string, payload: object, gameId = 'demo'): Promise<void> {
    clock.set(iso);
    const player = await devSignIn(app, gameId, `p${runNumber % 3}`);
    const response = await app.inject({ method: 'POST', url: `/v1/games/${gameId}/runs/score`, headers: bearer(player.accessToken), payload: { runId: `activity-${++runNumber}`, payload } });
    expect([200, 422], response.body).toContain(response.statusCode);
  }

  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000' }, { clock });
    await storeManifest(app, manifestWith(otherGame));
    await runAt('2026-11-25T23:59:59.999Z', accepted); // one hour before the window: left out
    await runAt('2026-11-26T00:00:00.000Z', accepted); // the window's first instant
    await runAt('2026-11-26T00:59:59.999Z', rejected);
    await runAt('2026-11-26T13:30:00.000Z', flagged);
    await runAt('2026-11-26T13:45:00.000Z', accepted);
    await runAt('2026-11-27T23:10:00.000Z', accepted); // the current hour
    await runAt('2026-11-27T23:20:00.000Z', rejected);
    await runAt('2026-11-27T23:20:00.000Z', accepted, 'other'); // another game: not counted
    clock.set('2026-11-27T23:30:00.000Z');
    ops = new AdminBrowser(app);
    await ops.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('counts runs per UTC hour and status over whole hours ending with the current one, empty hours as zeros', async () => {
    const hours = await runsPerHour(app.database.db, 'demo', clock.now(), 48);
    expect(hours).toHaveLength(48);
    expect(hours[0]!.startsAt).toBe(Date.parse('2026-11-26T00:00:00.000Z'));
    expect(hours.map((h, i) => h.startsAt - hours[0]!.startsAt - i * hourMs)).toEqual(Array(48).fill(0));
    const nonEmpty = hours.flatMap((h, i) => (h.counts.accepted + h.counts.flagged + h.counts.rejected > 0 ? [[i, h.counts]] : []));
    expect(nonEmpty).toEqual([
      [0, { accepted: 1, flagged: 0, rejected: 1 }],
      [13, { accepted: 1, flagged: 1, rejected: 0 }],
      [47, { accepted: 1, flagged: 0, rejected: 1 }],
    ]);
  });

  it('moves its window with the clock, and lists a game without runs as all zeros', async () => {
    const later = await runsPerHour(app.database.db, 'demo', Date.parse('2026-11-28T00:00:00.000Z'), 24);
    expect(later[0]!.startsAt).toBe(Date.parse('2026-11-27T01:00:00.000Z'));
    expect(later[22]!.counts).toEqual({ accepted: 1, flagged: 0, rejected: 1 });
    expect(later[23]!.counts).toEqual({ accepted: 0, flagged: 0, rejected: 0 });
    const none = await runsPerHour(app.database.db, 'galaxy-none', clock.now(), 48);
    expect(none.every((h) => h.counts.accepted + h.counts.flagged + h.counts.rejected === 0)).toBe(true);
  });

  it('answers the game page as JSON with the last 48 hours, ISO hour starts, every hour listed', async () => {
    const page = (await ops.get('/admin/games/demo', 'application/json')).json();
    expect(page.activity.hours).toHaveLength(48);
    expect(page.activity.hours[0]).toEqual({ startsAt: '2026-11-26T00:00:00.000Z', accepted: 1, flagged: 0, rejected: 1 });
    expect(page.activity.hours[1]).toEqual({ startsAt: '2026-11-26T01:00:00.000Z', accepted: 0, flagged: 0, rejected: 0 });
    expect(page.activity.hours[47]).toEqual({ startsAt: '2026-11-27T23:00:00.000Z', accepted: 1, flagged: 0, rejected: 1 });
    const other = (await ops.get('/admin/games/other', 'application/json')).json();
    expect(other.activity.hours.reduce((sum: number, h: { accepted: number }) => sum + h.accepted, 0)).toBe(1);
  });

  describe('the HTML page', () => {
    it('draws both charts with a legend of the window totals, axis labels, and each hour’s counts on hover', async () => {
      const page = await ops.get('/admin/games/demo');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Runs per hour');
      expect(page.body).toContain('Accepted, rejected and flagged per hour');
      expect(page.body).toContain('Runs: 6');
      expect(page.body).toMatch(/Accepted: 3<\/li>.*Rejected: 2<\/li>.*Flagged: 1<\/li>/s);
      expect((page.body.match(/<svg class="chart"/g) ?? []).length).toBe(2);
      expect(page.body).toContain('>27 Nov</text>');
      expect(page.body).toContain('>12:00</text>');
      expect(page.body).toContain('<title>2026-11-26 13:00 UTC: 2 runs (1 accepted, 0 rejected, 1 flagged)</title>');
      expect((page.body.match(/<rect class="bar"/g) ?? []).length).toBe(3);
    });
  });
});
