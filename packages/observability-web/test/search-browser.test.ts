import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeEachDatabase, launchChromium } from '@playstack/server-kit/testing';
import { buildDashboard, clearScreenshots, screenshot, signedInAsFirstAdmin, startService, type watchPage, type RunningService } from './support/dashboard-harness.js';
import { sample, sampleEnvelopes } from './support/sample-telemetry.js';

const admin = { name: 'Sam Search', email: 'sam@example.com', password: 'correct horse battery staple' };
const key = 'search-browser-key-0123456789';

interface SentOccurrence {
  traceId: string;
  spanId: string;
  operation: string;
  durationMs: number;
}

let build: { dir: string; dispose: () => void };
let browser: Browser;

beforeAll(async () => {
  [build, browser] = await Promise.all([buildDashboard(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  build?.dispose();
});

describeEachDatabase('finding traces and searching occurrences in a browser', (database) => {
  let suite: string;
  let service: RunningService;
  let context: BrowserContext;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  const sent: SentOccurrence[] = [];

  const url = (path: string) => `${service.baseUrl}${path}`;
  const shot = (name: string) => screenshot(page, suite, name);
  const findBox = () => page.getByRole('search', { name: 'Find a trace' });
  const list = () => page.getByRole('table', { name: 'Occurrences' });

  beforeAll(async () => {
    suite = `search-${database().dialect}`;
    clearScreenshots(suite);
    service = await startService(database(), build.dir, { SERVICE_API_KEY: key });
    for (const envelope of sampleEnvelopes(Date.now())) {
      const response = await fetch(url('/api/v1/ingest'), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(envelope.body) });
      expect(response.status).toBe(202);
      sent.push(...(envelope.body as { occurrences: SentOccurrence[] }).occurrences);
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

  it('opens a pasted trace id from the header of any page', async () => {
    await page.goto(url('/services'));
    const charge = sent.find((occurrence) => occurrence.operation === 'POST /charge')!;
    await findBox().getByLabel('Trace or span id').fill(`  ${charge.traceId.toUpperCase()} `);
    await shot('find-trace-pasted');
    await findBox().getByLabel('Trace or span id').press('Enter');
    await page.waitForURL(new RegExp(`/traces/${charge.traceId}$`));
    const rows = page.getByRole('table', { name: 'Trace waterfall' }).locator('.waterfall-row:not(.waterfall-head)');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(sample.spansPerTrace);
    expect(await page.getByText('Select a span to see its details.').count()).toBe(1);
    await shot('find-trace-landed');
  });

  it('opens a pasted span id on its trace with the span selected, kept in the URL across a reload', async () => {
    const query = sent.find((occurrence) => occurrence.operation === 'SELECT orders')!;
    await findBox().getByLabel('Trace or span id').fill(query.spanId);
    await findBox().getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(new RegExp(`/traces/${query.traceId}\\?span=${query.spanId}$`));
    await page.getByRole('region', { name: 'Span details' }).getByText(sample.statement).waitFor();
    await page.reload();
    await page.getByRole('region', { name: 'Span details' }).getByText(sample.statement).waitFor();
    // Choosing another span puts it in the URL in place of the first.
    const web = sent.find((occurrence) => occurrence.traceId === query.traceId && occurrence.operation === 'GET /checkout')!;
    await page.getByRole('table', { name: 'Trace waterfall' }).locator('.waterfall-row').filter({ hasText: 'GET /checkout' }).click();
    await page.waitForURL(new RegExp(`\\?span=${web.spanId}$`));
    await page.getByRole('region', { name: 'Span details' }).getByRole('heading', { name: /GET \/checkout/ }).waitFor();
    await shot('trace-span-in-url');
    // Selecting replaces the history entry: Back leaves the trace (for the one opened before).
    const charge = sent.find((occurrence) => occurrence.operation === 'POST /charge')!;
    await page.goBack();
    await page.waitForURL(new RegExp(`/traces/${charge.traceId}$`));
  });

  it('says so when an id is not stored, or is not an id', async () => {
    await page.goto(url('/occurrences'));
    const unknown = 'ab'.repeat(16);
    await findBox().getByLabel('Trace or span id').fill(unknown);
    await findBox().getByLabel('Trace or span id').press('Enter');
    await findBox().getByRole('alert').getByText(`No trace with the id ${unknown} is stored`).waitFor();
    expect(new URL(page.url()).pathname).toBe('/occurrences');
    await shot('find-trace-unknown');
    await findBox().getByLabel('Trace or span id').fill('not-an-id');
    await findBox().getByLabel('Trace or span id').press('Enter');
    await findBox().getByRole('alert').getByText('A trace id is 32 hexadecimal characters, a span id 16.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/occurrences');
  });

  it('filters occurrences by an attribute, in the URL', async () => {
    await page.goto(url('/occurrences'));
    await page.getByText(`1–50 of ${sample.traces * sample.spansPerTrace}`).waitFor();
    await page.getByLabel('Attribute').fill('card.brand=visa');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/attr\.card\.brand=visa/);
    await page.getByText(`1–${sample.traces} of ${sample.traces}`).waitFor();
    expect(new Set(await list().locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['POST /charge']));
    await shot('occurrences-attribute');
    // The filter survives a reload, and its chip removes it.
    await page.reload();
    await page.getByText(`1–${sample.traces} of ${sample.traces}`).waitFor();
    await page.getByRole('button', { name: 'Remove card.brand=visa' }).click();
    await page.getByText(`1–50 of ${sample.traces * sample.spansPerTrace}`).waitFor();
    expect(page.url()).not.toContain('attr.');
  });

  it('filters occurrences by brushing the duration chart, in the URL', async () => {
    const chart = page.getByRole('img', { name: /Occurrences per duration/ });
    await chart.waitFor();
    // The 90 ms and the 100-120 ms bars (the two longest): GET /checkout, POST checkout/orders, POST /orders.
    const bars = chart.locator('g[data-from-ms]');
    const count = await bars.count();
    const from = (await bars.nth(count - 2).boundingBox())!;
    const to = (await bars.nth(count - 1).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 3, to.y + to.height / 2, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 2 });
    await page.mouse.up();
    await page.waitForURL(/minDurationMs=79\.433&maxDurationMs=125\.893/);
    const expected = sent.filter((occurrence) => occurrence.durationMs >= 79.433 && occurrence.durationMs <= 125.893);
    expect(expected.length).toBe(3 * sample.traces);
    await page.getByText(`1–${expected.length} of ${expected.length}`).waitFor();
    expect(new Set(await list().locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['GET /checkout', 'POST checkout/orders', 'POST /orders']));
    expect(await page.getByLabel('Minimum duration (ms)').inputValue()).toBe('79.433');
    await shot('occurrences-brushed');

    // Combined with the HTTP status class: the failing traces' 502s in that range.
    await page.getByLabel('HTTP class').selectOption('5xx');
    await page.waitForURL(/httpStatusClass=5xx/);
    expect(page.url()).toContain('minDurationMs=79.433');
    await page.getByText(`1–${2 * sample.errorTraces} of ${2 * sample.errorTraces}`).waitFor();
    await shot('occurrences-brushed-5xx');
  });

  it('made no request elsewhere and raised no page error', () => {
    expect(watched.problems).toEqual([]);
  });
});
