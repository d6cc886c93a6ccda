import { expect, it } from 'vitest';
import { describeAppOnEachDatabase } from '@playstack/server-kit/testing';
import { dashboardBanner } from '../src/users/first-user-banner.js';
import { setUpFirstAdmin } from './support/browser-session.js';
import { buildTestApp } from './support/test-app.js';

describeAppOnEachDatabase('start banner', buildTestApp, (app) => {
  it('names the dashboard, and on a fresh install the first steps, until the first user exists', async () => {
    expect(await dashboardBanner(app(), 'http://127.0.0.1:8081')).toEqual([
      'dashboard: http://127.0.0.1:8081/',
      'first run: open http://127.0.0.1:8081/ and create the first user (an administrator); then create an ingestion key under Settings > Keys',
    ]);
    await setUpFirstAdmin(app());
    expect(await dashboardBanner(app(), 'http://127.0.0.1:8081')).toEqual(['dashboard: http://127.0.0.1:8081/']);
  });
});
