import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { snap as snapInto, useAdminPagesBrowser } from './support/admin-pages-browser.js';
import { bearer, devSignIn } from './support/identity-fixtures.js';

const screenshotsDir = fileURLToPath(new URL('../../../test-output/game-admin/pages/', import.meta.url));
const password = 'correct horse battery';
const widths = [1400, 390] as const;
const hourMs = 3_600_000;
const now = Date.parse('2026-11-27T21:20:00.000Z');
const players = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra', 'Barbara Liskov'];
const clock = new ManualClock(now - 48 * hourMs);

/** Two days of runs of the demo game, busier in the daytime, with a few rejected and flagged ones. */
async function seedRuns(app: App): Promise<void> {
  let n = 0;
  for (let hour = 47; hour >= 0; hour--) {
    const hourOfDay = new Date(now - hour * hourMs).getUTCHours();
    const runs = hourOfDay < 6 ? hour % 3 : 2 + Math.round(4 * Math.sin((hourOfDay / 24) * Math.PI));
    for (let i = 0; i < runs; i++) {
      clock.set(now - hour * hourMs - i * 60_000);
      const player = await devSignIn(app, 'demo', players[(n + i) % players.length]!);
      const score = 1_000 + ((n * 7_919) % 90_000);
      const kind = n % 11 === 0 ? 'rejected' : n % 7 === 0 ? 'flagged' : 'accepted';
      const payload =
        kind === 'rejected' ? { score: -score, durationMs: 45_000 } : { score, durationMs: 20_000 + ((n * 1_237) % 100_000), ...(kind === 'flagged' ? { hints: { score: score + 5 } } : {}) };
      const run = await app.inject({ method: 'POST', url: '/v1/games/demo/runs/score', headers: bearer(player.accessToken), payload: { runId: `seed-run-${++n}`, payload } });
      expect(run.statusCode).toBe(kind === 'rejected' ? 422 : 200);
    }
  }
  clock.set(now);
}

const served = useAdminPagesBrowser(screenshotsDir, seedRuns, {
  env: { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000' },
  build: { clock },
});

const snap = (page: Page, name: string, width: number) => snapInto(screenshotsDir, page, `${name}-${width}`);

/** Screenshots the page as it is at each width (nothing wider than the window), back at the first after. */
async function snapAtEachWidth(page: Page, name: string): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    expect(await pageOverflow(page)).toBe(0);
    await snap(page, name, width);
  }
  await page.setViewportSize({ width: widths[0], height: 900 });
}

/** How far the page is wider than the window (0: no sideways scrolling of the whole page). */
async function pageOverflow(page: Page): Promise<number> {
  return page.locator('html').evaluate((root) => Math.max(0, root.scrollWidth - root.clientWidth));
}

/** How far the widest table is wider than its card (0: it fits, nothing to scroll sideways). */
async function tableOverflow(page: Page): Promise<number> {
  return page.locator('.card').evaluateAll((cards) => Math.max(0, ...cards.map((card) => card.scrollWidth - card.clientWidth)));
}

it('every admin page reads at 1400 px and 390 px: screenshots of each, nothing wider than the window', async () => {
  const context = await served.browser.newContext({ viewport: { width: widths[0], height: 900 } });
  const page = await context.newPage();
  await page.goto(`${served.baseUrl}/admin/register`);
  await page.fill('#name', 'Operator');
  await page.fill('#email', 'operator@example.com');
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/');

  // Something for the audit page: a player hidden, then shown again.
  await page.goto(`${served.baseUrl}/admin/players?q=Grace`);
  await Promise.all([page.waitForNavigation(), page.click('main table >> text=Grace Hopper')]);
  await page.fill('#hide-reason', 'score far beyond the evidence');
  await Promise.all([page.waitForNavigation(), page.click('text=Hide from every board')]);
  await page.fill('#unhide-reason', 'appeal: replay checked');
  await Promise.all([page.waitForNavigation(), page.click('main button:text("Unhide")')]);

  const pages: ReadonlyArray<{ name: string; path: string; prepare?: (page: Page) => Promise<void> }> = [
    { name: '02-overview', path: '/admin/' },
    { name: '03-games', path: '/admin/games' },
    { name: '04-game-charts', path: '/admin/games/demo' },
    { name: '05-board-daily', path: '/admin/games/demo?period=daily' },
    {
      name: '06-runs-evidence-open',
      path: '/admin/games/demo/runs',
      prepare: async (p) => {
        await p.locator('details summary', { hasText: 'evidence' }).first().click();
      },
    },
    { name: '07-player-search', path: `/admin/players?q=${encodeURIComponent('a')}` },
    {
      name: '08-player-page',
      path: '/admin/players?q=Ada',
      prepare: async (p) => {
        await p.click('main a:has-text("Ada Lovelace")');
        await expect.poll(() => new URL(p.url()).pathname).toMatch(/^\/admin\/games\/demo\/players\//);
      },
    },
    { name: '09-audit', path: '/admin/audit' },
    { name: '12-adapters', path: '/admin/adapters' },
    { name: '13-health', path: '/admin/health' },
  ];
  const overflowing: string[] = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    for (const { name, path, prepare } of pages) {
      await page.goto(`${served.baseUrl}${path}`);
      await prepare?.(page);
      const wider = await pageOverflow(page);
      if (wider > 0) overflowing.push(`${name} at ${width} px: ${wider} px too wide`);
      // At 1400 px every table fits its card; narrow windows may scroll a table inside its card.
      const tableWider = width === widths[0] ? await tableOverflow(page) : 0;
      if (tableWider > 0) overflowing.push(`a table of ${name} at ${width} px: ${tableWider} px too wide`);
      await snap(page, name, width);
    }
  }
  expect(overflowing).toEqual([]);
  await context.close();

  const signedOut = await served.browser.newContext();
  const login = await signedOut.newPage();
  for (const width of widths) {
    await login.setViewportSize({ width, height: 900 });
    await login.goto(`${served.baseUrl}/admin/login`);
    expect(await pageOverflow(login)).toBe(0);
    await snap(login, '01-sign-in', width);
  }
  await signedOut.close();
}, 120_000);

it('an operator previews a manifest change as a diff, saves it, and rolls back to an earlier version in one click', async () => {
  const context = await served.browser.newContext({ viewport: { width: widths[0], height: 900 } });
  const page = await context.newPage();
  await page.goto(`${served.baseUrl}/admin/login`);
  await page.fill('#email', 'operator@example.com');
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/');

  const clickAndLoad = (selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);
  /** Edits the demo game in the editor and saves (or previews) it. */
  async function submitDemo(change: (game: { name: string; boards: Array<{ name: string }> }) => void, button: string): Promise<void> {
    await page.goto(`${served.baseUrl}/admin/manifest`);
    const manifest = JSON.parse(await page.inputValue('#manifest')) as { games: Array<{ id: string; name: string; boards: Array<{ name: string }> }> };
    change(manifest.games.find((g) => g.id === 'demo')!);
    await page.fill('#manifest', JSON.stringify(manifest, null, 2));
    await clickAndLoad(`button:has-text("${button}")`);
  }
  const demoName = async () => {
    await page.goto(`${served.baseUrl}/admin/games`);
    return page.locator('table a[href="/admin/games/demo"]').innerText();
  };

  await submitDemo((game) => (game.name = 'Demo Live'), 'Validate and save');
  expect(await page.locator('.notice.success').innerText()).toContain('Saved as version 1');
  await submitDemo((game) => {
    game.name = 'Demo Weekend';
    game.boards[0]!.name = 'High score (weekend)';
  }, 'Preview changes');
  expect(await page.locator('.notice.success').innerText()).toContain('Not saved yet');
  expect(await page.locator('pre.diff .del').allInnerTexts()).toEqual(['-          "name": "High score",', '-      "name": "Demo Live"']);
  expect(await page.locator('pre.diff .add').allInnerTexts()).toEqual(['+          "name": "High score (weekend)",', '+      "name": "Demo Weekend"']);
  await snapAtEachWidth(page, '10-manifest-editor-diff');
  await clickAndLoad('button:has-text("Validate and save")');
  expect(await page.locator('.notice.success').innerText()).toContain('Saved as version 2');
  expect(await demoName()).toBe('Demo Weekend');

  // The version page shows what rolling back changes; the history rolls back in one click.
  await page.goto(`${served.baseUrl}/admin/manifest/versions/1`);
  expect(await page.locator('pre.diff .add').allInnerTexts()).toEqual(['+          "name": "High score",', '+      "name": "Demo Live"']);
  await snapAtEachWidth(page, '11-manifest-version');
  await page.goto(`${served.baseUrl}/admin/manifest`);
  await clickAndLoad('table.history button:has-text("Roll back to 1")');
  expect(await page.locator('.notice.success').innerText()).toContain('Saved as version 3');
  expect(await page.locator('table.history tbody tr').first().innerText()).toContain('rolled back to version 1');
  await snapAtEachWidth(page, '11-manifest-history');
  expect(await demoName()).toBe('Demo Live');
  await context.close();
}, 120_000);
