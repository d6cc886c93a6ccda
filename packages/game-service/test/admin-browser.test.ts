import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { galaxyGame, manifestWith } from './support/identity-fixtures.js';
import { snap as snapInto, submitScoreRun, useAdminPagesBrowser } from './support/admin-pages-browser.js';

const screenshotsDir = fileURLToPath(new URL('../../../test-output/game-admin/', import.meta.url));
const password = 'correct horse battery';

const served = useAdminPagesBrowser(screenshotsDir);

const snap = (page: Page, name: string) => snapInto(screenshotsDir, page, name);

const submitRun = (gameId: string, name: string, runId: string, score: number) => submitScoreRun(served.baseUrl, gameId, name, runId, { score, durationMs: 30_000 });

it('an operator registers, signs in, fixes a manifest, sees the new game and its runs, and signs out', async () => {
  const context = await served.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const externalRequests: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(served.baseUrl)) externalRequests.push(request.url());
  });

  // A signed-out visit is sent to sign in.
  await page.goto(`${served.baseUrl}/admin/games`);
  expect(new URL(page.url()).pathname).toBe('/admin/login');
  await snap(page, '01-login');

  // The first administrator registers freely and is signed in.
  await page.click('text=Register');
  await snap(page, '02-register');
  await page.fill('#name', 'Operator');
  await page.fill('#email', 'operator@example.com');
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/');
  await snap(page, '03-overview');

  // Sign out and in again.
  await page.click('header form button');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/login');
  await page.fill('#email', 'operator@example.com');
  await page.fill('#password', password);
  await page.click('main button[type=submit]');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/admin/');

  // A manifest with an error is refused; the error is shown and the text kept.
  await page.click('nav >> text=Manifest');
  const nova = { ...galaxyGame, id: 'nova', name: 'Nova', auth: { provider: 'dev' as const } };
  const broken = JSON.stringify(manifestWith({ ...nova, boards: [{ ...nova.boards[0]!, source: { adapter: 'missing', value: 'score' } }] }), null, 2);
  await page.fill('#manifest', broken);
  await page.click('main button[type=submit]');
  await expect.poll(() => page.locator('.notice.error').innerText()).toContain('not saved');
  expect(await page.inputValue('#manifest')).toBe(broken);
  await snap(page, '04-manifest-error');

  // Fixed, it is saved as a new version.
  const fixed = JSON.stringify(manifestWith(nova), null, 2);
  await page.fill('#manifest', fixed);
  await page.click('main button[type=submit]');
  await expect.poll(() => page.locator('.notice.success').innerText()).toContain('Saved as version 1');
  await snap(page, '05-manifest-saved');

  // The new game is listed; runs submitted through the API show on its runs page.
  await page.click('nav >> text=Games');
  await expect.poll(() => page.locator('main table').innerText()).toContain('Nova');
  await snap(page, '06-games');
  await submitRun('nova', 'ada', 'nova-run-0001', 420);
  await submitRun('nova', 'grace', 'nova-run-0002', 1337);
  await page.click('text=Nova');
  await expect.poll(() => page.locator('main').innerText()).toContain('grace');
  await snap(page, '07-game');
  await page.click('text=Recent runs of Nova');
  await expect.poll(() => page.locator('main table tbody tr').count()).toBe(2);
  await expect.poll(() => page.locator('main table').innerText()).toContain('nova-run-0002');
  await snap(page, '08-runs');

  await page.click('nav >> text=Adapters');
  await snap(page, '09-adapters');
  await page.click('nav >> text=Health');
  await expect.poll(() => page.locator('main').innerText()).toContain('database');
  await snap(page, '10-health');

  // Narrow screens get the same pages, legible.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${served.baseUrl}/admin/`);
  await snap(page, '11-overview-mobile');

  // Signing out ends the session: the pages send the visitor back to sign in.
  await page.click('header form button');
  await page.goto(`${served.baseUrl}/admin/manifest`);
  expect(new URL(page.url()).pathname).toBe('/admin/login');
  expect(externalRequests).toEqual([]);
  await context.close();
});
