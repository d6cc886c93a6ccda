import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { clearScreenshots, expectStaysPutOnRelease, holdRequests, screenshot, screenshotFailures, startService, useDashboardTools, watchPage, type RunningService } from './support/dashboard-harness.js';
import { sample, sampleEnvelopes } from './support/sample-telemetry.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { exportSpans, recordSampleTrace } from '../../observability-service/test/support/otlp-sample-trace.js';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { exportLogs, recordSampleLogs } from '../../observability-service/test/support/otlp-sample-logs.js';

const admin = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery staple' };
const member = { name: 'Max Member', email: 'max@example.com', password: 'another long passphrase' };

const tools = useDashboardTools();

describeEachDatabase('dashboard in a browser', (database) => {
  let suite: string;
  let service: RunningService;
  let context: BrowserContext;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  let ingestionKey: string;

  const url = (path: string) => `${service.baseUrl}${path}`;
  const shot = (name: string) => screenshot(page, suite, name);

  beforeAll(async () => {
    suite = database().dialect;
    clearScreenshots(suite);
    // Last-used times are written every second here, so the key list can show them.
    service = await startService(database(), tools.build.dir, { INGEST_KEY_LAST_USED_FLUSH_SECONDS: '1' });
    context = await tools.browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    watched = watchPage(page, service.baseUrl);
  });
  screenshotFailures(shot);
  afterAll(async () => {
    await context?.close();
    await service?.app.close();
  });

  it('sends a signed-out visitor to sign in, and first run to setup', async () => {
    await page.goto(url('/services'));
    await page.waitForURL(/\/login\?next=%2Fservices/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shot('login');
    await page.getByRole('link', { name: /Set up the first administrator/ }).click();
    await page.getByRole('heading', { name: 'Set up the service' }).waitFor();
    await page.getByLabel('Name').fill(admin.name);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await shot('setup');
    await page.getByRole('button', { name: 'Create administrator' }).click();
    await page.waitForURL(/\/settings\/keys$/);
    await page.getByText(admin.name).waitFor();
  });

  it('points a fresh install to creating a key', async () => {
    await page.getByRole('link', { name: 'Services', exact: true }).click();
    await page.getByText('No service reported in this range').waitFor();
    await shot('services-empty');
    await page.getByRole('link', { name: 'Settings › Keys' }).click();
    await page.waitForURL(/\/settings\/keys$/);
  });

  it('creates an ingestion key, showing the secret once with a copy button', async () => {
    await page.getByLabel('New key name').fill('shop production');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('new-key-secret');
    await secret.waitFor();
    ingestionKey = (await secret.textContent())!.trim();
    expect(ingestionKey.length).toBeGreaterThanOrEqual(32);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    // Strings, not functions: these run in the page, whose DOM types this Node-side file does not load.
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(ingestionKey);
    const row = page.getByRole('table', { name: 'Ingestion keys' }).getByRole('row', { name: /shop production/ });
    await row.getByText('Never').waitFor();
    await shot('settings-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-key-secret').count()).toBe(0);
  });

  it('accepts data ingested with that key', async () => {
    for (const envelope of sampleEnvelopes(Date.now())) {
      const response = await fetch(url('/api/v1/ingest'), {
        method: 'POST',
        headers: { authorization: `Bearer ${ingestionKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(envelope.body),
      });
      expect(response.status, envelope.service).toBe(202);
      const result = (await response.json()) as { rejected: { occurrences: number } };
      expect(result.rejected.occurrences, envelope.service).toBe(0);
    }
  });

  it('shows when a key was last used', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    const row = page.getByRole('table', { name: 'Ingestion keys' }).getByRole('row', { name: /shop production/ });
    await expect
      .poll(
        async () => {
          await page.reload();
          return row.locator('td').nth(3).textContent();
        },
        { timeout: 10_000, interval: 500 },
      )
      .toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });

  it('recovers when signing in from another tab leaves this tab with a stale CSRF token', async () => {
    const otherTab = await context.newPage();
    try {
      await otherTab.goto(url('/login'));
      await otherTab.getByLabel('Email').fill(admin.email);
      await otherTab.getByLabel('Password').fill(admin.password);
      await otherTab.getByRole('button', { name: 'Sign in' }).click();
      await otherTab.waitForURL(/\/services/);
    } finally {
      await otherTab.close();
    }
    const refused: number[] = [];
    const onResponse = (response: { status: () => number; url: () => string }) => {
      if (response.url().endsWith('/api/v1/admin/keys') && response.status() === 403) refused.push(response.status());
    };
    page.on('response', onResponse);
    await page.getByLabel('New key name').fill('staging');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('table', { name: 'Ingestion keys' }).getByRole('row', { name: /staging/ }).waitFor();
    page.off('response', onResponse);
    expect(refused).toEqual([403]);
    await page.getByRole('button', { name: 'Done' }).click();
  });

  it('lists the services with their figures and sparklines', async () => {
    watched.apiGets.length = 0;
    await page.getByRole('link', { name: 'Services', exact: true }).click();
    const table = page.getByRole('table', { name: 'Services' });
    for (const name of sample.services) await table.getByRole('link', { name, exact: true }).waitFor();
    const checkoutRow = table.getByRole('row', { name: /checkout/ });
    await checkoutRow.getByText('production').waitFor();
    // Requests are entry spans: one server span per trace in each service, database and outgoing calls not counted.
    await checkoutRow.getByRole('cell', { name: String(sample.traces), exact: true }).first().waitFor();
    await checkoutRow.getByRole('cell', { name: '0.70', exact: true }).waitFor();
    for (const name of sample.services) await table.getByRole('img', { name: `${name} requests over time` }).locator('polyline').first().waitFor();
    // The filter bar and the table need the same list: one request serves both.
    expect(watched.apiGets.filter((path) => path === '/api/v1/services')).toHaveLength(1);
    expect(watched.apiGets.filter((path) => path === '/api/v1/trend')).toHaveLength(sample.services.length);
    const order = () => table.locator('tbody tr td:first-child').allTextContents();
    expect(await order()).toEqual(['checkout', 'payments', 'web']);
    await table.getByRole('button', { name: 'p95' }).click();
    await page.waitForURL(/sort=-p95Ms/);
    expect(await order()).toEqual(['web', 'checkout', 'payments']);
    await shot('services');
  });

  it('opens a service: tiles, trend charts, database and dependencies tabs', async () => {
    // The trend charts and the operations tables below them load separately: charts that arrive after
    // the tables take no more room than their placeholders did, so the tables stay put.
    const trend = await holdRequests(page, '**/api/v1/trend*');
    await page.getByRole('table', { name: 'Services' }).getByRole('link', { name: 'checkout', exact: true }).click();
    await page.waitForURL(/\/services\/checkout$/);
    const callsTable = page.getByRole('table', { name: 'Outgoing calls and internal operations' });
    await callsTable.getByRole('link', { name: 'SELECT orders' }).waitFor();
    await expectStaysPutOnRelease(trend, callsTable, page.getByRole('img', { name: 'Apdex chart' }), () => shot('service-trends-loading'));
    await page.locator('.tile', { hasText: 'Requests' }).first().getByText(String(sample.traces), { exact: true }).waitFor();
    await page.locator('.tile', { hasText: 'Error rate' }).getByText('30%').waitFor();
    // The service picker names the page's service, not "All services".
    expect(await page.getByLabel('Service filter').inputValue()).toBe('checkout');
    // Throughput, errors, latency and Apdex, each drawn by uPlot on a canvas.
    await expect.poll(() => page.locator('.chart-canvas canvas').count(), { timeout: 10_000 }).toBe(4);
    expect(await page.locator('.chart-title').allTextContents()).toEqual([expect.stringMatching(/^Throughput/), expect.stringMatching(/^Errors/), 'Latency percentiles', 'Apdex']);
    // Legends show the latest values before anything is hovered, never "--".
    const legends = await page.locator('.chart .u-legend').allTextContents();
    expect(legends).toHaveLength(4);
    for (const legend of legends) {
      expect(legend).not.toContain('--');
      expect(legend).toMatch(/\(latest\)/);
    }
    expect(legends[2]).toMatch(/p50\s*\d+(\.\d)? ms/);
    // Entry operations (the server spans), then the calls the service makes.
    const operations = page.getByRole('table', { name: 'Entry operations' });
    await operations.getByRole('link', { name: 'POST /orders' }).waitFor();
    const rowsOf = async (table: typeof operations) =>
      (await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].slice(0, 4).map((cell) => cell.textContent?.trim()))));
    expect(await rowsOf(operations)).toEqual([['POST /orders', 'server', String(sample.traces), '30%']]);
    expect(await operations.locator('thead th').allTextContents()).toEqual(['Operation', 'Kind', 'Requests', 'Error rate', 'p50', 'p95', 'p99', 'Apdex']);
    const calls = page.getByRole('table', { name: 'Outgoing calls and internal operations' });
    await calls.getByRole('link', { name: 'SELECT orders' }).waitFor();
    expect(await rowsOf(calls)).toEqual([
      ['POST payments/charge', 'client', String(sample.traces), '0%'],
      ['SELECT orders', 'client', String(sample.traces), '0%'],
    ]);
    expect(await calls.locator('thead th').allTextContents()).toEqual(['Operation', 'Kind', 'Calls', 'Error rate', 'p50', 'p95', 'p99']);
    // Apdex at the default T = 500 ms: 7 fast successes of 10 requests; at T = 50 ms the 90 ms ones only tolerate.
    const apdexTile = page.locator('.tile', { hasText: 'Apdex' });
    await apdexTile.getByText('0.70', { exact: true }).waitFor();
    await apdexTile.getByText(/T = 500 ms/).waitFor();
    await apdexTile.getByRole('button', { name: 'change' }).click();
    await page.getByLabel('Apdex threshold T (ms)').fill('50');
    await page.getByRole('button', { name: 'Save' }).click();
    await apdexTile.getByText('0.35', { exact: true }).waitFor();
    await apdexTile.getByText(/T = 50 ms/).waitFor();
    await page.getByRole('table', { name: 'Entry operations' }).getByRole('cell', { name: '0.35', exact: true }).waitFor();
    expect(watched.stateChanging.filter((request) => request.url === '/api/v1/services/checkout/settings').every((request) => request.csrf)).toBe(true);
    await shot('service-overview');
    // Each operation opens the occurrences of that service and operation.
    await operations.getByRole('link', { name: 'POST /orders' }).click();
    await page.waitForURL((address) => address.pathname === '/occurrences' && address.searchParams.get('service') === 'checkout' && address.searchParams.get('operation') === 'POST /orders');
    await page.getByText(`1–${sample.traces} of ${sample.traces}`).waitFor();
    await page.goBack();
    await page.waitForURL(/\/services\/checkout$/);
    await operations.waitFor();

    await page.getByRole('link', { name: 'Database', exact: true }).nth(1).click();
    await page.waitForURL(/\/services\/checkout\/database$/);
    await page.getByRole('table', { name: 'Database statements' }).getByText(/SELECT id, total FROM orders WHERE id = \?/).waitFor();
    await shot('service-database');

    await page.getByRole('link', { name: 'Dependencies', exact: true }).nth(1).click();
    await page.waitForURL(/\/services\/checkout\/dependencies$/);
    await page.getByRole('img', { name: 'Service map' }).waitFor();
    await page.getByRole('table', { name: 'Dependencies' }).getByRole('link', { name: 'payments' }).waitFor();
    await shot('service-dependencies');
    // Picking another service opens its page on the same tab; "All services" goes back to the list.
    await page.getByLabel('Service filter').selectOption('payments');
    await page.waitForURL((address) => address.pathname === '/services/payments/dependencies' && !address.searchParams.has('service'));
    expect(await page.getByLabel('Service filter').inputValue()).toBe('payments');
    await page.getByLabel('Service filter').selectOption('');
    await page.waitForURL((address) => address.pathname === '/services');
  });

  it('filters occurrences by status=error, in the URL', async () => {
    // The list and the duration histogram above it load separately: a histogram that arrives after
    // the list takes no more room than its placeholder did, so the pager below stays put.
    const durations = await holdRequests(page, '**/api/v1/occurrences/durations*');
    await page.getByRole('link', { name: 'Occurrences', exact: true }).click();
    await page.getByRole('table', { name: 'Occurrences' }).waitFor();
    const total = sample.traces * sample.spansPerTrace;
    await page.getByText(`1–50 of ${total}`).waitFor();
    const older = page.getByRole('button', { name: 'Older' });
    await expectStaysPutOnRelease(durations, older, page.getByRole('img', { name: /Occurrences per duration/ }), () => shot('occurrences-histogram-loading'));
    await older.click();
    await page.waitForURL(/offset=50/);
    await page.getByText(`51–${total} of ${total}`).waitFor();
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.getByText(`1–50 of ${total}`).waitFor();
    await page.getByLabel('Status').selectOption('error');
    await page.waitForURL(/status=error/);
    await page.getByText(`1–${sample.errorOccurrences} of ${sample.errorOccurrences}`).waitFor();
    const statuses = await page.getByRole('table', { name: 'Occurrences' }).locator('tbody .badge').allTextContents();
    expect(statuses).toEqual(Array(sample.errorOccurrences).fill('error'));
    await shot('occurrences-errors');
  });

  it('keeps the occurrences list in place when the duration histogram arrives on a narrow screen, or with nothing to show', async () => {
    // On a phone the loaded caption would wrap where the placeholder's does not: both keep to one line.
    const listBefore = page.url();
    await page.setViewportSize({ width: 390, height: 900 });
    try {
      const narrow = await holdRequests(page, '**/api/v1/occurrences/durations*');
      await page.goto(url('/occurrences'));
      const older = page.getByRole('button', { name: 'Older' });
      await older.waitFor();
      await expectStaysPutOnRelease(narrow, older, page.getByRole('img', { name: /Occurrences per duration/ }), () => shot('occurrences-histogram-loading-narrow'));
      await shot('occurrences-narrow');
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }
    // A range without occurrences: the histogram says so in the plot's room, not in one short line.
    const empty = await holdRequests(page, '**/api/v1/occurrences/durations*');
    await page.goto(url('/occurrences?from=2020-01-01T00:00:00.000Z&to=2020-01-02T00:00:00.000Z'));
    const noData = page.getByText('No data in this range.');
    await noData.waitFor();
    await expectStaysPutOnRelease(empty, noData, page.getByText('No occurrence matches.'));
    await shot('occurrences-empty');
    await page.goto(listBefore);
    await page.getByRole('table', { name: 'Occurrences' }).waitFor();
  });

  it('opens an occurrence with its fields, attributes, error and stack, then its trace waterfall', async () => {
    const paymentsRow = page.getByRole('table', { name: 'Occurrences' }).getByRole('row', { name: /payments/ }).first();
    await paymentsRow.getByRole('link').click();
    await page.waitForURL(/\/occurrences\/[^/?]+/);
    await page.getByRole('heading', { name: 'Error: CardDeclined' }).waitFor();
    await page.getByText('card declined', { exact: true }).waitFor();
    await page.locator('.stack').getByText(/at charge \(payments\/src\/charge\.ts:42:11\)/).waitFor();
    await page.getByRole('row', { name: /card\.brand/ }).getByText('visa').waitFor();
    await shot('occurrence');

    await page.getByRole('link', { name: 'View trace' }).click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}/);
    const rows = page.getByRole('table', { name: 'Trace waterfall' }).locator('.waterfall-row:not(.waterfall-head)');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(sample.spansPerTrace);
    expect(await rows.locator('.waterfall-name').allTextContents()).toEqual([
      'GET /checkout',
      'POST checkout/orders',
      'POST /orders',
      'SELECT orders',
      'POST payments/charge',
      'POST /charge',
    ]);
    // The occurrence we came from is selected, with its details below.
    await page.getByRole('region', { name: 'Span details' }).getByText('CardDeclined', { exact: false }).first().waitFor();
    await rows.filter({ hasText: 'SELECT orders' }).click();
    await page.getByRole('region', { name: 'Span details' }).getByText(sample.statement).waitFor();
    await shot('trace');
  });

  it('shows the database, dependencies and health pages', async () => {
    await page.getByRole('link', { name: 'Database', exact: true }).first().click();
    await page.getByRole('table', { name: 'Database statements' }).waitFor();
    await shot('database');
    await page.getByRole('link', { name: 'Dependencies', exact: true }).first().click();
    await page.getByRole('img', { name: 'Service map' }).locator('.map-node', { hasText: 'payments' }).waitFor();
    await shot('dependencies');
    await page.getByRole('link', { name: 'Health', exact: true }).click();
    await page.locator('.tile', { hasText: 'Database' }).first().getByText(/· ok/).waitFor();
    await shot('health');
  });

  it('keeps the time range and filters in the URL, so a reload or shared link shows the same view', async () => {
    await page.getByRole('link', { name: 'Services', exact: true }).click();
    await page.getByLabel('Time range').selectOption('1h');
    await page.waitForURL(/range=1h/);
    await page.getByLabel('Service filter').selectOption('payments');
    await page.waitForURL(/service=payments/);
    await expect.poll(() => page.getByRole('table', { name: 'Services' }).locator('tbody tr').allTextContents(), { timeout: 10_000 }).toEqual([expect.stringMatching(/^payments/)]);
    await page.reload();
    expect(await page.getByLabel('Time range').inputValue()).toBe('1h');
    expect(await page.getByLabel('Service filter').inputValue()).toBe('payments');
    // Navigation carries the view along.
    await page.getByRole('link', { name: 'Occurrences', exact: true }).click();
    await page.waitForURL(/\/occurrences\?range=1h&service=payments/);
    await page.getByText(`of ${sample.traces}`).waitFor();
    await page.getByLabel('Service filter').selectOption('');
    await page.waitForURL((current) => !current.searchParams.has('service'));
    // A custom range, in UTC, also lives in the URL.
    await page.getByLabel('Time range').selectOption('custom');
    const from = new Date(Date.now() - 2 * 3_600_000).toISOString().slice(0, 16);
    const to = new Date(Date.now() + 60_000).toISOString().slice(0, 16);
    await page.getByLabel('From (UTC)').fill(from);
    await page.getByLabel('To (UTC)').fill(to);
    await page.getByRole('form', { name: 'Custom range' }).getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((current) => current.searchParams.get('from') === `${from}:00.000Z` && current.searchParams.get('to') === `${to}:00.000Z`);
    await page.getByText(`of ${sample.traces * sample.spansPerTrace}`).waitFor();
    await shot('custom-range');
    await page.getByLabel('Time range').selectOption('24h');
    await page.waitForURL((current) => !current.searchParams.has('from'));
  });

  it('exports usage as CSV with a row per tenant, service and period', async () => {
    // The trend and the table below it load separately: a trend that arrives after the table takes no
    // more room than its placeholder did, so the table stays put.
    const trend = await holdRequests(page, '**/api/v1/usage/trend*');
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    const table = page.getByRole('table', { name: 'Usage per tenant' });
    for (const tenant of sample.tenants) await table.getByRole('button', { name: tenant }).waitFor();
    await expectStaysPutOnRelease(trend, table, page.getByRole('img', { name: /^Occurrences and log records per .+ chart$/ }), () => shot('usage-trend-loading'));
    await shot('usage');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/tenantId/);
    for (const tenant of sample.tenants) {
      for (const name of sample.services) expect(lines.some((line) => line.includes(tenant) && line.includes(name)), `${tenant} ${name}`).toBe(true);
    }
    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export JSON' }).click()]);
    const exported = JSON.parse(readFileSync((await jsonDownload.path())!, 'utf8')) as { rows: Array<{ tenantId: string; occurrences: number }> };
    expect(exported.rows.reduce((sum, row) => sum + row.occurrences, 0)).toBe(sample.traces * sample.spansPerTrace);
  });

  it('invites a member, who signs up through the link and cannot see Settings > Users', async () => {
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('link', { name: 'Invitations', exact: true }).click();
    await page.getByLabel('Email').fill(member.email);
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('invitation-link').textContent())!.trim();
    expect(link).toMatch(/\/accept-invitation#token=/);
    await page.getByRole('table', { name: 'Invitations' }).getByText(member.email).waitFor();
    await shot('settings-invitations');
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('table', { name: 'Users' }).getByText(admin.email).waitFor();
    await shot('settings-users');
    await page.getByRole('link', { name: 'Retention', exact: true }).click();
    await page.getByLabel('Keep data for (days)').fill('30');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await page.reload();
    await expect.poll(() => page.getByLabel('Keep data for (days)').inputValue()).toBe('30');
    await shot('settings-retention');
    await page.getByRole('link', { name: 'Password', exact: true }).click();
    await page.getByLabel('Current password').waitFor();
    await shot('settings-password');

    const memberContext = await tools.browser.newContext({ viewport: { width: 1360, height: 900 } });
    try {
      const memberPage = await memberContext.newPage();
      memberPage.setDefaultTimeout(10_000);
      const memberWatch = watchPage(memberPage, service.baseUrl);
      await memberPage.goto(link);
      await memberPage.getByRole('heading', { name: 'Join the team' }).waitFor();
      await memberPage.getByLabel('Name').fill(member.name);
      await memberPage.getByLabel('Password').fill(member.password);
      await screenshot(memberPage, suite, 'accept-invitation');
      await memberPage.getByRole('button', { name: 'Accept invitation' }).click();
      await memberPage.waitForURL(/\/services/);
      await memberPage.getByText(member.name).waitFor();
      await memberPage.getByRole('link', { name: 'Settings', exact: true }).click();
      await memberPage.waitForURL(/\/settings\/password$/);
      await memberPage.getByLabel('Current password').waitFor();
      expect(await memberPage.getByRole('link', { name: 'Users', exact: true }).count()).toBe(0);
      expect(await memberPage.getByRole('link', { name: 'Keys', exact: true }).count()).toBe(0);
      // Typing the address does not help either.
      await memberPage.goto(url('/settings/users'));
      await memberPage.waitForURL(/\/settings\/password$/);
      await screenshot(memberPage, suite, 'member-settings');
      await memberPage.getByLabel('Current password').fill(member.password);
      await memberPage.getByLabel('New password').fill(`${member.password} changed`);
      await memberPage.getByRole('button', { name: 'Change password' }).click();
      await memberPage.getByText('Password changed.').waitFor();
      // A narrow screen still shows the whole page, wrapped rather than cut off.
      await memberPage.setViewportSize({ width: 390, height: 844 });
      await memberPage.getByRole('link', { name: 'Services', exact: true }).click();
      await memberPage.getByRole('table', { name: 'Services' }).waitFor();
      expect(await memberPage.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(memberPage, suite, 'services-narrow');
      expect(memberWatch.problems).toEqual([]);
    } finally {
      await memberContext.close();
    }
  });

  it('revokes a key, after which ingestion with it is refused', async () => {
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    const row = page.getByRole('table', { name: 'Ingestion keys' }).getByRole('row', { name: /shop production/ });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked').waitFor();
    const [envelope] = sampleEnvelopes(Date.now());
    const response = await fetch(url('/api/v1/ingest'), {
      method: 'POST',
      headers: { authorization: `Bearer ${ingestionKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(envelope!.body),
    });
    expect(response.status).toBe(401);
  });

  it('sends a signed-out user to sign in and back to where they were', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(url('/occurrences?status=error&range=6h'));
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/occurrences\?status=error&range=6h$/);
    await page.getByText(`of ${sample.errorOccurrences}`).waitFor();
  });

  it('shows the password reset pages', async () => {
    const resetContext = await tools.browser.newContext({ viewport: { width: 1360, height: 900 } });
    try {
      const resetPage = await resetContext.newPage();
      await resetPage.goto(url('/reset-password'));
      await resetPage.getByLabel('Email').fill(admin.email);
      await screenshot(resetPage, suite, 'password-reset-request');
      await resetPage.getByRole('button', { name: 'Send reset link' }).click();
      await resetPage.getByRole('heading', { name: 'Check your mail' }).waitFor();
      await resetPage.goto(url('/reset-password#token=an-expired-or-unknown-token-0123456789'));
      await resetPage.getByLabel('New password').fill('a brand new passphrase');
      await resetPage.getByRole('button', { name: 'Set password' }).click();
      await resetPage.getByRole('alert').waitFor();
      await screenshot(resetPage, suite, 'password-reset-confirm');
    } finally {
      await resetContext.close();
    }
  });

  it('shows an OTLP span\'s events on its bar and in its details, and follows its link to the linked trace', async () => {
    // Last, so its spans change no figure the earlier steps check; the first key is revoked by now.
    const { csrfToken } = (await (await page.request.get(url('/api/v1/auth/session'))).json()) as { csrfToken: string };
    const created = await page.request.post(url('/api/v1/admin/keys'), { data: { name: 'otlp exporter' }, headers: { 'x-csrf-token': csrfToken } });
    const { key } = (await created.json()) as { key: string };
    const trace = await recordSampleTrace('orders-otlp');
    const exporter = new OTLPTraceExporter({ url: url('/v1/traces'), headers: { authorization: `Bearer ${key}` } });
    expect((await exportSpans(exporter, trace.spans)).error).toBeUndefined();
    await exporter.shutdown();
    await page.goto(url(`/traces/${trace.server.spanContext().traceId}`));
    const waterfall = page.getByRole('table', { name: 'Trace waterfall' });
    const queryRow = waterfall.locator('.waterfall-row', { hasText: 'INSERT orders' });
    await queryRow.getByLabel('event retry').waitFor();
    await queryRow.getByLabel('event exception').waitFor();
    await queryRow.click();
    const details = page.getByRole('region', { name: 'Span details' });
    const events = details.getByRole('region', { name: 'Events' });
    expect(await events.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['retry', 'exception']);
    await events.getByRole('row', { name: /retry/ }).getByText('retry.attempt=2').waitFor();
    await details.getByRole('region', { name: 'Resource attributes' }).getByRole('row', { name: /host\.name/ }).getByText('web-3').waitFor();
    await shot('trace-events');

    await waterfall.locator('.waterfall-row', { hasText: 'POST /orders' }).click();
    const links = details.getByRole('region', { name: 'Links' });
    await links.getByText('link.reason=triggered by').waitFor();
    await links.getByRole('link').click();
    await page.waitForURL(new RegExp(`/traces/${trace.producer.spanContext().traceId}`));
    await page.getByRole('region', { name: 'Span details' }).getByText('enqueue order').first().waitFor();
  });

  it('shows a trace\'s log lines beside its waterfall, and finds them on the Logs page by trace, words and severity', async () => {
    const { csrfToken } = (await (await page.request.get(url('/api/v1/auth/session'))).json()) as { csrfToken: string };
    const created = await page.request.post(url('/api/v1/admin/keys'), { data: { name: 'otlp logs' }, headers: { 'x-csrf-token': csrfToken } });
    const { key } = (await created.json()) as { key: string };
    const trace = await recordSampleTrace('orders-logs');
    const traceExporter = new OTLPTraceExporter({ url: url('/v1/traces'), headers: { authorization: `Bearer ${key}` } });
    expect((await exportSpans(traceExporter, trace.spans)).error).toBeUndefined();
    await traceExporter.shutdown();
    const logs = await recordSampleLogs('orders-logs', trace.server.spanContext());
    const logExporter = new OTLPLogExporter({ url: url('/v1/logs'), headers: { authorization: `Bearer ${key}` } });
    expect((await exportLogs(logExporter, logs.records)).error).toBeUndefined();
    await logExporter.shutdown();

    const traceId = trace.server.spanContext().traceId;
    await page.goto(url(`/traces/${traceId}`));
    const panel = page.getByRole('region', { name: 'Trace logs' });
    const lines = panel.getByRole('table', { name: 'Trace log lines' });
    await lines.getByText('payment gateway slow').waitFor();
    // In time order, beside the waterfall.
    expect(await lines.locator('tbody tr.log-row td.log-body').allTextContents()).toEqual([
      'payment gateway slow: retrying in 250 ms',
      JSON.stringify(logs.records[1]!.body),
      'order placed',
    ]);
    await page.getByRole('table', { name: 'Trace waterfall' }).waitFor();
    const [waterfallBox, panelBox] = [await page.getByRole('table', { name: 'Trace waterfall' }).boundingBox(), await panel.boundingBox()];
    expect(panelBox!.x).toBeGreaterThan(waterfallBox!.x + waterfallBox!.width - 1);
    await lines.locator('tbody tr.log-row').nth(1).click();
    const details = lines.locator('.log-fields');
    await details.getByText('checkout.orders 1.4.0').waitFor();
    await details.getByRole('region', { name: 'Attributes' }).getByRole('row', { name: /order\.express/ }).getByText('true').waitFor();
    await shot('trace-logs');

    // The severity histogram and the lines below it load separately: a histogram that arrives after the
    // lines takes no more room than its placeholder did, so the lines stay put.
    const trend = await holdRequests(page, '**/api/v1/logs/trend*');
    await panel.getByRole('link', { name: 'open in Logs' }).click();
    await page.waitForURL(new RegExp(`/logs\\?.*traceId=${traceId}`));
    const table = page.getByRole('table', { name: 'Log lines' });
    await table.getByText('order placed').waitFor();
    expect(await table.locator('tbody tr.log-row').count()).toBe(3);
    await expectStaysPutOnRelease(trend, table, page.getByRole('img', { name: 'Log records per time bucket by severity' }), () => shot('logs-histogram-loading'));
    await page.getByText('3 log records').waitFor();
    await shot('logs-trace');
    // The same on a phone, where the histogram's caption and legend share a narrow line.
    await page.setViewportSize({ width: 390, height: 900 });
    try {
      const narrowTrend = await holdRequests(page, '**/api/v1/logs/trend*');
      await page.reload();
      await table.getByText('order placed').waitFor();
      await expectStaysPutOnRelease(narrowTrend, table, page.getByRole('img', { name: 'Log records per time bucket by severity' }), () => shot('logs-histogram-loading-narrow'));
      await shot('logs-trace-narrow');
    } finally {
      await page.setViewportSize({ width: 1360, height: 900 });
    }

    await page.getByRole('button', { name: 'Show all lines' }).click();
    await page.getByLabel('Search').fill('gateway');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/logs\?.*q=gateway/);
    await expect.poll(() => table.locator('tbody tr.log-row').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Severity' }).selectOption('error');
    await page.waitForURL(/severity=error/);
    await page.getByText('No log lines match in this range').waitFor();
    await page.getByRole('combobox', { name: 'Severity' }).selectOption('warn');
    await table.getByText('payment gateway slow').waitFor();
    await page.getByLabel('Live tail').check();
    await page.waitForURL(/live=1/);
    await page.getByText(/Live: the newest line, reloaded every 2 s/).waitFor();
    await shot('logs-search');
    // A line with a trace id links to its trace.
    await table.getByRole('link', { name: /…/ }).click();
    await page.waitForURL(new RegExp(`/traces/${traceId}`));
    await page.getByRole('region', { name: 'Trace logs' }).getByText('order placed').waitFor();
  });

  it('sent the CSRF token on every signed-in state-changing call, and made no request elsewhere', () => {
    const signedInCalls = watched.stateChanging.filter((call) => !/\/auth\/(login|setup|invitations\/accept|password-reset\/)/.test(call.url));
    expect(signedInCalls.map((call) => call.url)).toEqual(expect.arrayContaining(['/api/v1/admin/keys', expect.stringMatching(/^\/api\/v1\/admin\/keys\/.+/), '/api/v1/admin/invitations', '/api/v1/auth/logout']));
    for (const call of signedInCalls) expect(call.csrf, `${call.method} ${call.url}`).toMatch(/.{16,}/);
    expect(watched.problems).toEqual([]);
  });
});
