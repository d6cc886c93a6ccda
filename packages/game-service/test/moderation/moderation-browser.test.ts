import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { manifestWith, storeManifest } from '../support/identity-fixtures.js';
import { snap as snapInto, submitScoreRun, useAdminPagesBrowser } from '../support/admin-pages-browser.js';
import { arenaGame } from '../leaderboards/leaderboard-fixtures.js';

const screenshotsDir = fileURLToPath(new URL('../../../../test-output/game-admin/moderation/', import.meta.url));
const password = 'correct horse battery';
const game = arenaGame('arena');

const served = useAdminPagesBrowser(screenshotsDir, (app) => storeManifest(app, manifestWith(game)));

const snap = (page: Page, name: string) => snapInto(screenshotsDir, page, name);

const submitRun = (name: string, runId: string, score: number, hints?: Record<string, number>) =>
  submitScoreRun(served.baseUrl, game.id, name, runId, { score, durationMs: 30_000, ...(hints ? { hints } : {}) });

/** The names on the high-score board of the game page, top first. */
async function highScoreNames(page: Page): Promise<string[]> {
  await page.goto(`${served.baseUrl}/admin/games/${game.id}`);
  const card = page.locator('.card', { has: page.locator('h2', { hasText: 'High score' }) });
  return card.locator('tbody tr td:nth-child(2)').allInnerTexts();
}

it('an operator finds a player, hides them, sees the board change, and undoes it; pages at 1400 px and 390 px', async () => {
  await submitRun('ada', 'ada-run-0001', 420);
  await submitRun('grace', 'grace-run-0001', 1337, { score: 9_999 });
  await submitRun('linus', 'linus-run-0001', 600);

  const context = await served.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${served.baseUrl}/admin/register`);
  await page.fill('#name', 'Operator');
  await page.fill('#email', 'operator@example.com');
  await page.fill('#password', password);
  await page.click('main button[type=submit]');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/');
  expect(await highScoreNames(page)).toEqual(['grace', 'linus', 'ada']);
  await snap(page, '01-game-1400');

  // Find her by part of her name and open her page.
  await page.click('nav >> text=Players');
  await page.fill('#q', 'RAC');
  await page.click('main button[type=submit]');
  await expect.poll(() => page.locator('main table tbody tr').count()).toBe(1);
  await snap(page, '02-search-1400');
  await page.click('main table >> text=grace');
  await expect.poll(() => page.locator('h1').innerText()).toBe('grace');
  expect(await page.locator('main').innerText()).toContain('flagged');
  // Humanized times carry the exact time on hover.
  expect(await page.locator('main time').first().getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await snap(page, '03-player-1400');

  // Hide her: she leaves the board, the others close up.
  await page.fill('#hide-reason', 'score far beyond the evidence');
  await page.click('text=Hide from every board');
  await expect.poll(() => page.locator('.notice.success').innerText()).toContain('Hidden from every board');
  await snap(page, '04-hidden-1400');
  expect(await highScoreNames(page)).toEqual(['linus', 'ada']);
  await snap(page, '05-game-without-her-1400');

  // Undo: she is back exactly where she was.
  await page.goto(`${served.baseUrl}/admin/players?q=grace`);
  await page.click('main table >> text=grace');
  await page.fill('#unhide-reason', 'appeal: replay checked');
  await page.click('main button:text("Unhide")');
  await expect.poll(() => page.locator('.notice.success').innerText()).toContain('Visible again');
  expect(await highScoreNames(page)).toEqual(['grace', 'linus', 'ada']);

  await page.click('nav >> text=Audit');
  await expect.poll(() => page.locator('main table tbody tr').count()).toBe(2);
  expect(await page.locator('main table').innerText()).toContain('appeal: replay checked');
  await snap(page, '06-audit-1400');

  // The same pages on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${served.baseUrl}/admin/players?q=grace`);
  await snap(page, '07-search-390');
  await page.click('main table >> text=grace');
  await snap(page, '08-player-390');
  await page.goto(`${served.baseUrl}/admin/audit`);
  await snap(page, '09-audit-390');
  await page.goto(`${served.baseUrl}/admin/games/${game.id}`);
  await snap(page, '10-game-390');
  await context.close();
}, 120_000);
