import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { HttpReceiver } from '../../observability-service/test/support/http-receiver.js';
import { expectStaysPutOnRelease, holdRequests, ingestEnvelopes, useDashboardTools, useSignedInDashboard } from './support/dashboard-harness.js';

const admin = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery staple' };
const key = 'alerts-browser-test-key-0123456789';
const minuteMs = 60_000;

const tools = useDashboardTools();

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join('');

describeEachDatabase('alerts in a browser', (database) => {
  const receiver = new HttpReceiver();
  let receiverBase = '';
  beforeAll(async () => {
    receiverBase = await receiver.listen();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** Requests of checkout in the minute starting `minuteStart`; `failing` of them fail. */
  const ingest = async (minuteStart: number, requests: number, failing: number) => {
    const occurrences = Array.from({ length: requests }, (_, i) => ({
      traceId: hex(32),
      spanId: hex(16),
      operation: 'POST /checkout',
      kind: 'server',
      startedAt: new Date(minuteStart + i * 1000).toISOString(),
      durationMs: 40 + i,
      status: i < failing ? 'error' : 'ok',
      ...(i < failing ? { error: { type: 'PaymentDeclined', message: 'card declined', stack: 'PaymentDeclined: card declined\n    at charge (/srv/app/charge.ts:41:7)' } } : {}),
    }));
    const body = { protocol: 1, sentAt: new Date().toISOString(), resource: { service: 'checkout', environment: 'production' }, occurrences };
    await ingestEnvelopes(dashboard.service.baseUrl, key, [{ service: 'checkout', body }]);
  };

  const dashboard = useSignedInDashboard(tools, database, {
    name: 'alerts',
    admin,
    // 178 envelopes in a loop: past the default 100 per second per key on a quiet machine.
    env: { SERVICE_API_KEY: key, ALERT_EVALUATION_INTERVAL_SECONDS: '3600', ALERT_EVALUATION_DELAY_SECONDS: '0', INGEST_RATE_LIMIT_PER_SECOND: '100000' },
    prepare: async () => {
      // Two hours ago: 20 minutes of failures (the preview shows them); the rest of the last hours healthy.
      const thisMinute = Math.floor(Date.now() / minuteMs) * minuteMs;
      for (let n = 180; n >= 3; n -= 1) await ingest(thisMinute - n * minuteMs, 10, n <= 130 && n > 110 ? 6 : 0);
    },
    setupTimeoutMs: 120_000,
  });
  const { url, shot } = dashboard;

  it('adds a webhook channel in Settings and sends a test', async () => {
    await dashboard.page.goto(url('/settings/alert-channels'));
    await dashboard.page.getByLabel('Channel name').fill('ops hook');
    await dashboard.page.getByLabel('URL').fill(`${receiverBase}/hook`);
    await dashboard.page.getByRole('button', { name: 'Add channel' }).click();
    await dashboard.page.getByRole('status', { name: 'Signing secret' }).waitFor();
    const row = dashboard.page.getByRole('table', { name: 'Alert channels' }).getByRole('row', { name: /ops hook/ });
    await row.getByRole('button', { name: 'Send test' }).click();
    await expect.poll(() => dashboard.page.getByTestId('test-result-ops hook').textContent()).toContain('delivered (HTTP 200)');
    expect(JSON.parse(receiver.at('/hook')[0]!.body)).toMatchObject({ version: 1, type: 'test' });
    await shot('alert-channels');
  });

  it('creates a rule after previewing how it would have fired over the last 24 hours', async () => {
    await dashboard.page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await dashboard.page.waitForURL(/\/alerts$/);
    await dashboard.page.getByRole('button', { name: 'New rule' }).click();
    const form = dashboard.page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name').fill('checkout failing');
    await form.getByLabel('Service').fill('checkout');
    await form.getByLabel('Threshold').fill('30');
    await form.getByLabel('Window (minutes)').fill('5');
    await form.getByLabel('For (minutes)').fill('0');
    await form.getByLabel(/ops hook/).check();
    await form.getByRole('button', { name: 'Preview last 24 h' }).click();
    await expect.poll(() => dashboard.page.getByTestId('preview-summary').textContent()).toMatch(/^Would have fired 1 time: /);
    await shot('rule-preview');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const table = dashboard.page.getByRole('table', { name: 'Alert rules' });
    await table.getByRole('row', { name: /checkout failing/ }).waitFor();
    await expect.poll(() => table.getByRole('row', { name: /checkout failing/ }).getByText('ok', { exact: true }).count()).toBe(1);
    const alertChanges = dashboard.watched.stateChanging.filter((request) => request.url.startsWith('/api/v1/alerts/'));
    expect(alertChanges.map((request) => request.url)).toEqual(['/api/v1/alerts/channels', '/api/v1/alerts/channels/' + alertChanges[1]!.url.split('/')[5] + '/test', '/api/v1/alerts/preview', '/api/v1/alerts/rules']);
    expect(alertChanges.every((request) => request.csrf !== undefined)).toBe(true);
  });

  it('shows the rule firing on injected data, and opens a linked trace from the alert event', async () => {
    const thisMinute = Math.floor(Date.now() / minuteMs) * minuteMs;
    for (let n = 5; n >= 1; n -= 1) await ingest(thisMinute - n * minuteMs, 10, 8);
    await dashboard.service.app.alerts.evaluator.runOnce();
    await dashboard.service.app.alerts.notifier.runOnce();
    await dashboard.page.reload();
    const row = dashboard.page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /checkout failing/ });
    await expect.poll(() => row.getByText('firing', { exact: true }).count()).toBe(1);
    const latest = dashboard.page.getByRole('table', { name: 'Alert history' });
    await latest.getByRole('row', { name: /checkout failing/ }).first().waitFor();
    await shot('rule-firing');
    expect(JSON.parse(receiver.at('/hook').at(-1)!.body)).toMatchObject({ type: 'alert', status: 'firing', rule: { name: 'checkout failing' } });
    // The rule's sparkline is wide enough to read: 240 by 40 pixels.
    const sparkline = row.getByRole('img', { name: /checkout failing: error-rate over 24 hours/ });
    expect(await sparkline.boundingBox()).toMatchObject({ width: 240, height: 40 });
    // At the test's 1,360 pixels the top bar keeps every section on one line.
    const nav = dashboard.page.getByRole('navigation', { name: 'Main' });
    const [services, settings] = await Promise.all([nav.getByRole('link', { name: 'Services' }).boundingBox(), nav.getByRole('link', { name: 'Settings' }).boundingBox()]);
    expect(settings!.y).toBe(services!.y);

    const traceLink = latest.locator('a[href^="/traces/"]').first();
    const href = await traceLink.getAttribute('href');
    await traceLink.click();
    await dashboard.page.waitForURL(new RegExp(`${href}$`));
    await dashboard.page.getByText('POST /checkout').first().waitFor();
    await shot('linked-trace');
    expect(dashboard.watched.problems).toEqual([]);
  });

  it('lists every transition on the history page, filtered by rule and state, with links to the rule and its evidence', async () => {
    // A sparkline that arrives late takes no more room than its placeholder did: the link below the rules stays put.
    const series = await holdRequests(dashboard.page, '**/api/v1/alerts/rules/*/series*');
    await dashboard.page.getByRole('link', { name: 'Alerts', exact: true }).click();
    const allHistory = dashboard.page.getByRole('link', { name: 'All history →' });
    await dashboard.page.getByRole('table', { name: 'Alert rules' }).getByRole('row', { name: /checkout failing/ }).waitFor();
    await expectStaysPutOnRelease(series, allHistory, dashboard.page.getByRole('img', { name: /checkout failing: error-rate over 24 hours/ }));
    await allHistory.click();
    await dashboard.page.waitForURL(/\/alerts\/history/);
    const table = dashboard.page.getByRole('table', { name: 'Alert history' });
    const rows = table.getByRole('row', { name: /checkout failing/ });
    await rows.first().waitFor();
    // The minutes of the injected failures: the rule fired (its error rate over the threshold) and notified the channel.
    await dashboard.page.locator('select[name="state"]').selectOption('firing');
    await dashboard.page.waitForURL(/state=firing/);
    await expect.poll(() => rows.count()).toBe(1);
    const firing = rows.first();
    expect(await firing.getByRole('cell').nth(2).textContent()).toBe('ok → firing');
    expect(Number(await firing.getByRole('cell').nth(3).textContent())).toBeGreaterThan(30);
    expect(await firing.getByRole('cell').nth(4).textContent()).toBe('> 30');
    expect(await firing.getByRole('cell').nth(6).textContent()).toBe('1 of 1 delivered');
    expect(await firing.locator('a[href^="/traces/"]').count()).toBe(3);
    expect(await firing.getByRole('link', { name: 'PaymentDeclined: card declined' }).count()).toBe(1);
    expect(await firing.getByRole('link', { name: 'window' }).getAttribute('href')).toMatch(/^\/services\/checkout\?from=/);
    await dashboard.page.locator('select[name="rule"]').selectOption({ label: 'checkout failing' });
    await dashboard.page.waitForURL(/rule=/);
    await expect.poll(() => rows.count()).toBe(1);
    await dashboard.page.locator('select[name="state"]').selectOption('resolved');
    await expect.poll(() => dashboard.page.getByText('No alert changed state in this range with these filters.').count()).toBe(1);
    await dashboard.page.locator('select[name="state"]').selectOption('');
    await rows.first().waitFor();
    await shot('alert-history');

    await rows.first().getByRole('link', { name: 'checkout failing' }).click();
    await dashboard.page.waitForURL(/\/alerts\?rule=/);
    await dashboard.page.locator('tr.row-selected', { hasText: 'checkout failing' }).waitFor();
    expect(dashboard.watched.problems).toEqual([]);
  });
});
