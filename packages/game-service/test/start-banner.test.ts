import { expect, it } from 'vitest';
import { describeAppOnEachDatabase } from '@playstack/server-kit/testing';
import { adminBanner } from '../src/admin/admin-banner.js';
import { AdminBrowser } from './support/admin-browser-session.js';
import { buildTestApp } from './support/test-app.js';

describeAppOnEachDatabase('start banner', buildTestApp, (app) => {
  it('names the admin pages, and on a fresh install where to register the first administrator, until one has', async () => {
    expect(await adminBanner(app(), 'http://127.0.0.1:8080')).toEqual([
      'admin pages: http://127.0.0.1:8080/admin/',
      'first run: register the first administrator at http://127.0.0.1:8080/admin/register',
    ]);
    const registered = await new AdminBrowser(app()).register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery staple' });
    expect(registered.statusCode).toBe(303);
    expect(await adminBanner(app(), 'http://127.0.0.1:8080')).toEqual(['admin pages: http://127.0.0.1:8080/admin/']);
  });
});
