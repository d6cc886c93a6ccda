import { expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { ingestEnvelopes, useDashboardTools, useSignedInDashboard } from './support/dashboard-harness.js';
import { sample, sampleEnvelopes } from './support/sample-telemetry.js';

const admin = { name: 'Sam Search', email: 'sam@example.com', password: 'correct horse battery staple' };
const key = 'search-browser-key-0123456789';

interface SentOccurrence {
  traceId: string;
  spanId: string;
  operation: string;
  durationMs: number;
}

const tools = useDashboardTools();

describeEachDatabase('finding traces and searching occurrences in a browser', (database) => {
  const sent: SentOccurrence[] = [];
  const dashboard = useSignedInDashboard(tools, database, {
    name: 'search',
    admin,
    env: { SERVICE_API_KEY: key },
    prepare: async ({ service }) => {
      const envelopes = sampleEnvelopes(Date.now());
      await ingestEnvelopes(service.baseUrl, key, envelopes);
      for (const envelope of envelopes) sent.push(...(envelope.body as { occurrences: SentOccurrence[] }).occurrences);
    },
  });
  const { url, shot } = dashboard;
  const findBox = () => dashboard.page.getByRole('search', { name: 'Find a trace' });
  const list = () => dashboard.page.getByRole('table', { name: 'Occurrences' });

  it('opens a pasted trace id from the header of any page', async () => {
    await dashboard.page.goto(url('/services'));
    const charge = sent.find((occurrence) => occurrence.operation === 'POST /charge')!;
    await findBox().getByLabel('Trace or span id').fill(`  ${charge.traceId.toUpperCase()} `);
    await shot('find-trace-pasted');
    await findBox().getByLabel('Trace or span id').press('Enter');
    await dashboard.page.waitForURL(new RegExp(`/traces/${charge.traceId}$`));
    const rows = dashboard.page.getByRole('table', { name: 'Trace waterfall' }).locator('.waterfall-row:not(.waterfall-head)');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(sample.spansPerTrace);
    expect(await dashboard.page.getByText('Select a span to see its details.').count()).toBe(1);
    await shot('find-trace-landed');
  });

  it('opens a pasted span id on its trace with the span selected, kept in the URL across a reload', async () => {
    const query = sent.find((occurrence) => occurrence.operation === 'SELECT orders')!;
    await findBox().getByLabel('Trace or span id').fill(query.spanId);
    await findBox().getByRole('button', { name: 'Find' }).click();
    await dashboard.page.waitForURL(new RegExp(`/traces/${query.traceId}\\?span=${query.spanId}$`));
    await dashboard.page.getByRole('region', { name: 'Span details' }).getByText(sample.statement).waitFor();
    await dashboard.page.reload();
    await dashboard.page.getByRole('region', { name: 'Span details' }).getByText(sample.statement).waitFor();
    // Choosing another span puts it in the URL in place of the first.
    const web = sent.find((occurrence) => occurrence.traceId === query.traceId && occurrence.operation === 'GET /checkout')!;
    await dashboard.page.getByRole('table', { name: 'Trace waterfall' }).locator('.waterfall-row').filter({ hasText: 'GET /checkout' }).click();
    await dashboard.page.waitForURL(new RegExp(`\\?span=${web.spanId}$`));
    await dashboard.page.getByRole('region', { name: 'Span details' }).getByRole('heading', { name: /GET \/checkout/ }).waitFor();
    await shot('trace-span-in-url');
    // Selecting replaces the history entry: Back leaves the trace (for the one opened before).
    const charge = sent.find((occurrence) => occurrence.operation === 'POST /charge')!;
    await dashboard.page.goBack();
    await dashboard.page.waitForURL(new RegExp(`/traces/${charge.traceId}$`));
  });

  it('says so when an id is not stored, or is not an id', async () => {
    await dashboard.page.goto(url('/occurrences'));
    const unknown = 'ab'.repeat(16);
    await findBox().getByLabel('Trace or span id').fill(unknown);
    await findBox().getByLabel('Trace or span id').press('Enter');
    await findBox().getByRole('alert').getByText(`No trace with the id ${unknown} is stored`).waitFor();
    expect(new URL(dashboard.page.url()).pathname).toBe('/occurrences');
    await shot('find-trace-unknown');
    await findBox().getByLabel('Trace or span id').fill('not-an-id');
    await findBox().getByLabel('Trace or span id').press('Enter');
    await findBox().getByRole('alert').getByText('A trace id is 32 hexadecimal characters, a span id 16.').waitFor();
    expect(new URL(dashboard.page.url()).pathname).toBe('/occurrences');
  });

  it('filters occurrences by an attribute, in the URL', async () => {
    await dashboard.page.goto(url('/occurrences'));
    await dashboard.page.getByText(`1–50 of ${sample.traces * sample.spansPerTrace}`).waitFor();
    await dashboard.page.getByLabel('Attribute').fill('card.brand=visa');
    await dashboard.page.getByRole('button', { name: 'Apply' }).click();
    await dashboard.page.waitForURL(/attr\.card\.brand=visa/);
    await dashboard.page.getByText(`1–${sample.traces} of ${sample.traces}`).waitFor();
    expect(new Set(await list().locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['POST /charge']));
    await shot('occurrences-attribute');
    // The filter survives a reload, and its chip removes it.
    await dashboard.page.reload();
    await dashboard.page.getByText(`1–${sample.traces} of ${sample.traces}`).waitFor();
    await dashboard.page.getByRole('button', { name: 'Remove card.brand=visa' }).click();
    await dashboard.page.getByText(`1–50 of ${sample.traces * sample.spansPerTrace}`).waitFor();
    expect(dashboard.page.url()).not.toContain('attr.');
  });

  it('filters occurrences by brushing the duration chart, in the URL', async () => {
    // The chip just removed reloads the histogram apart from the list, showing the filtered one
    // meanwhile: its bars are measured once it counts every occurrence again.
    const total = sample.traces * sample.spansPerTrace;
    await dashboard.page.getByRole('figure', { name: new RegExp(`^Duration distribution \\(${total} occurrences;`) }).waitFor();
    const chart = dashboard.page.getByRole('img', { name: /Occurrences per duration/ });
    // The 90 ms and the 100-120 ms bars (the two longest): GET /checkout, POST checkout/orders, POST /orders.
    const bars = chart.locator('g[data-from-ms]');
    const count = await bars.count();
    const from = (await bars.nth(count - 2).boundingBox())!;
    const to = (await bars.nth(count - 1).boundingBox())!;
    await dashboard.page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await dashboard.page.mouse.down();
    await dashboard.page.mouse.move(to.x + to.width / 3, to.y + to.height / 2, { steps: 5 });
    await dashboard.page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 2 });
    await dashboard.page.mouse.up();
    await dashboard.page.waitForURL(/minDurationMs=79\.433&maxDurationMs=125\.893/);
    const expected = sent.filter((occurrence) => occurrence.durationMs >= 79.433 && occurrence.durationMs <= 125.893);
    expect(expected.length).toBe(3 * sample.traces);
    await dashboard.page.getByText(`1–${expected.length} of ${expected.length}`).waitFor();
    expect(new Set(await list().locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['GET /checkout', 'POST checkout/orders', 'POST /orders']));
    expect(await dashboard.page.getByLabel('Minimum duration (ms)').inputValue()).toBe('79.433');
    await shot('occurrences-brushed');

    // Combined with the HTTP status class: the failing traces' 502s in that range.
    await dashboard.page.getByLabel('HTTP class').selectOption('5xx');
    await dashboard.page.waitForURL(/httpStatusClass=5xx/);
    expect(dashboard.page.url()).toContain('minDurationMs=79.433');
    await dashboard.page.getByText(`1–${2 * sample.errorTraces} of ${2 * sample.errorTraces}`).waitFor();
    await shot('occurrences-brushed-5xx');
  });

  it('made no request elsewhere and raised no page error', () => {
    expect(dashboard.watched.problems).toEqual([]);
  });
});
