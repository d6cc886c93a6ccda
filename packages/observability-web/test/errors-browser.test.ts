import { expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { ingestEnvelopes, useDashboardTools, useSignedInDashboard } from './support/dashboard-harness.js';
import { sample, sampleEnvelopes } from './support/sample-telemetry.js';

const admin = { name: 'Ada Admin', email: 'ada@example.com', password: 'correct horse battery staple' };
const key = 'errors-browser-test-key-0123456789';

const tools = useDashboardTools();

describeEachDatabase('error groups in a browser', (database) => {
  const dashboard = useSignedInDashboard(tools, database, {
    name: 'errors',
    admin,
    env: { SERVICE_API_KEY: key },
    prepare: ({ service }) => ingestEnvelopes(service.baseUrl, key, sampleEnvelopes(Date.now())),
  });
  const { url, shot } = dashboard;

  it('lists the unresolved error groups with their counts', async () => {
    await dashboard.page.getByRole('link', { name: 'Errors', exact: true }).click();
    await dashboard.page.waitForURL(/\/errors/);
    const table = dashboard.page.getByRole('table', { name: 'Error groups' });
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
    await dashboard.page.goto(url('/services/payments'));
    await dashboard.page.getByRole('link', { name: 'Errors', exact: true }).nth(1).click();
    await dashboard.page.waitForURL(/\/services\/payments\/errors/);
    const table = dashboard.page.getByRole('table', { name: 'Error groups' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await table.getByRole('row', { name: /CardDeclined/ }).waitFor();
    await shot('service-errors-tab');
    await dashboard.page.getByRole('link', { name: 'All error groups of payments' }).click();
    await dashboard.page.waitForURL(/\/errors\?.*service=payments/);
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await dashboard.page.goto(url('/errors'));
  });

  it('opens an error group and resolves it with the CSRF token; the list then hides it until asked for resolved ones', async () => {
    await dashboard.page.getByRole('link', { name: 'CardDeclined' }).click();
    await dashboard.page.waitForURL(/\/errors\/[0-9a-f]{16}/);
    await dashboard.page.getByRole('heading', { name: 'CardDeclined' }).waitFor();
    await dashboard.page.getByText('card declined', { exact: true }).first().waitFor();
    await dashboard.page.getByRole('table', { name: 'Latest occurrences' }).waitFor();
    expect(await dashboard.page.getByRole('table', { name: 'Latest occurrences' }).locator('tbody tr').count()).toBe(sample.errorTraces);
    expect(await dashboard.page.locator('.tile', { hasText: 'Events in range' }).locator('.tile-value').textContent()).toBe(String(sample.errorTraces));
    await shot('error-group-open');

    await dashboard.page.getByRole('button', { name: 'Resolve' }).click();
    await dashboard.page.getByRole('button', { name: 'Reopen' }).waitFor();
    await dashboard.page.locator('.error-header').getByText('resolved', { exact: true }).waitFor();
    const change = dashboard.watched.stateChanging.find((request) => request.url.endsWith('/status'));
    expect(change?.method).toBe('POST');
    expect(change?.csrf).toMatch(/.{16,}/);
    await shot('error-group-resolved');

    const groupUrl = dashboard.page.url();
    await dashboard.page.getByRole('table', { name: 'Latest occurrences' }).locator('tbody tr').first().getByRole('link').first().click();
    await dashboard.page.waitForURL(/\/occurrences\/\d+/);
    // The group page's events chart is drawn with the page: the link below it stays where it first
    // showed (its page offset, read at each frame until it shows) once the chart is there.
    // Strings, not functions: these run in the page, whose DOM types this Node-side file does not load.
    const exampleLinkTop = `(() => {
      const link = [...document.querySelectorAll('a')].find((a) => a.textContent.trim() === 'View example trace');
      return link && link.getBoundingClientRect().top + window.scrollY;
    })()`;
    await dashboard.page.evaluate(`void (window.exampleLinkFirstTop = new Promise((resolve) => {
      const look = () => {
        const top = ${exampleLinkTop};
        if (top !== undefined) resolve(top);
        else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    }))`);
    await dashboard.page.getByRole('link', { name: 'All occurrences of this error' }).click();
    await dashboard.page.waitForURL((current) => current.pathname === new URL(groupUrl).pathname);
    const exampleTrace = dashboard.page.getByRole('link', { name: 'View example trace' });
    await exampleTrace.waitFor();
    await dashboard.page.getByRole('img', { name: /^Events \(per .+\) chart$/ }).locator('canvas').first().waitFor();
    expect(await dashboard.page.evaluate<number>(exampleLinkTop)).toBe(await dashboard.page.evaluate<number>('window.exampleLinkFirstTop'));
    await exampleTrace.click();
    await dashboard.page.waitForURL(/\/traces\/[0-9a-f]{32}/);

    await dashboard.page.getByRole('link', { name: 'Errors', exact: true }).click();
    const table = dashboard.page.getByRole('table', { name: 'Error groups' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.getByRole('row', { name: /CardDeclined/ }).count()).toBe(0);
    await dashboard.page.getByLabel('Status').selectOption('resolved');
    await dashboard.page.waitForURL(/status=resolved/);
    await expect.poll(() => table.getByRole('row', { name: /CardDeclined/ }).count()).toBe(1);
    await shot('errors-list-resolved');
    expect(dashboard.watched.problems).toEqual([]);
  });
});
