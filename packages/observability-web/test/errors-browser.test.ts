import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeEachDatabase, launchChromium } from '@playstack/server-kit/testing';
import { buildDashboard, clearScreenshots, screenshot, signedInAsFirstAdmin, startService, type watchPage, type RunningService } from './support/dashboard-harness.js';
import { sample, sampleEnvelopes } from './support/sample-telemetry.js';

const admin = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery staple' };
const key = 'errors-browser-test-key-0123456789';

let build: { dir: string; dispose: () => void };
let browser: Browser;

beforeAll(async () => {
  [build, browser] = await Promise.all([buildDashboard(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  build?.dispose();
});

describeEachDatabase('error groups in a browser', (database) => {
  let suite: string;
  let service: RunningService;
  let context: BrowserContext;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  const url = (path: string) => `${service.baseUrl}${path}`;
  const shot = (name: string) => screenshot(page, suite, name);

  beforeAll(async () => {
    suite = `errors-${database().dialect}`;
    clearScreenshots(suite);
    service = await startService(database(), build.dir, { SERVICE_API_KEY: key });
    for (const envelope of sampleEnvelopes(Date.now())) {
      const response = await fetch(url('/api/v1/ingest'), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(envelope.body),
      });
      expect(response.status, envelope.service).toBe(202);
    }
    ({ context, page, watched } = await signedInAsFirstAdmin(browser, service.baseUrl, admin));
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`failed-${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`);
  });
  afterAll(async () => {
    await context?.close();
    await service?.app.close();
  });

  it('lists the unresolved error groups with their counts', async () => {
    await page.getByRole('link', { name: 'Errors', exact: true }).click();
    await page.waitForURL(/\/errors/);
    const table = page.getByRole('table', { name: 'Error groups' });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    for (const type of ['CardDeclined', 'UpstreamError']) {
      const row = table.getByRole('row', { name: new RegExp(type) });
      expect(await row.locator('td').nth(2).textContent()).toBe(String(sample.errorTraces));
      expect(await row.getByText('open', { exact: true }).count()).toBe(1);
    }
    await shot('errors-list');
  });

  it('shows a service’s unresolved error groups on its Errors tab', async () => {
    await page.goto(url('/services/payments'));
    await page.getByRole('link', { name: 'Errors', exact: true }).nth(1).click();
    await page.waitForURL(/\/services\/payments\/errors/);
    const table = page.getByRole('table', { name: 'Error groups' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByRole('row', { name: /CardDeclined/ }).waitFor();
    await shot('service-errors-tab');
    await page.getByRole('link', { name: 'All error groups of payments' }).click();
    await page.waitForURL(/\/errors\?.*service=payments/);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await page.goto(url('/errors'));
  });

  it('opens an error group and resolves it with the CSRF token; the list then hides it until asked for resolved ones', async () => {
    await page.getByRole('link', { name: 'CardDeclined' }).click();
    await page.waitForURL(/\/errors\/[0-9a-f]{16}/);
    await page.getByRole('heading', { name: 'CardDeclined' }).waitFor();
    await page.getByText('card declined', { exact: true }).first().waitFor();
    await page.getByRole('table', { name: 'Latest occurrences' }).waitFor();
    expect(await page.getByRole('table', { name: 'Latest occurrences' }).locator('tbody tr').count()).toBe(sample.errorTraces);
    expect(await page.locator('.tile', { hasText: 'Events in range' }).locator('.tile-value').textContent()).toBe(String(sample.errorTraces));
    await shot('error-group-open');

    await page.getByRole('button', { name: 'Resolve' }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    await page.locator('.error-header').getByText('resolved', { exact: true }).waitFor();
    const change = watched.stateChanging.find((request) => request.url.endsWith('/status'));
    expect(change?.method).toBe('POST');
    expect(change?.csrf).toMatch(/.{16,}/);
    await shot('error-group-resolved');

    const groupUrl = page.url();
    await page.getByRole('table', { name: 'Latest occurrences' }).locator('tbody tr').first().getByRole('link').first().click();
    await page.waitForURL(/\/occurrences\/\d+/);
    await page.getByRole('link', { name: 'All occurrences of this error' }).click();
    await page.waitForURL((current) => current.pathname === new URL(groupUrl).pathname);
    await page.getByRole('link', { name: 'View example trace' }).click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}/);

    await page.getByRole('link', { name: 'Errors', exact: true }).click();
    const table = page.getByRole('table', { name: 'Error groups' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.getByRole('row', { name: /CardDeclined/ }).count()).toBe(0);
    await page.getByLabel('Status').selectOption('resolved');
    await page.waitForURL(/status=resolved/);
    await expect.poll(() => table.getByRole('row', { name: /CardDeclined/ }).count()).toBe(1);
    await shot('errors-list-resolved');
    expect(watched.problems).toEqual([]);
  });
});
