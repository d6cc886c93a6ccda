import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, launchChromium, type TestDatabase } from '@playstack/server-kit/testing';
import type { BuildOptions } from '../../src/app.js';
import { buildTestApp } from './test-app.js';

/** The game service on a local port and the Chromium a browser test of the admin pages drives. */
export interface AdminPagesBrowser {
  app: App;
  baseUrl: string;
  browser: Browser;
}

/**
 * Before the file's tests: the service on a fresh SQLite database (prepared by `prepare`, for
 * example with a manifest), listening on a local port, and Chromium; all closed after them.
 * Screenshots go to `screenshotsDir` (created). The returned object is filled in by the time the tests run.
 * `env` and `build` are passed on to the service (extra settings, an injected clock).
 */
export function useAdminPagesBrowser(
  screenshotsDir: string,
  prepare: (app: App) => Promise<void> = async () => {},
  options: { env?: Record<string, string>; build?: BuildOptions } = {},
): AdminPagesBrowser {
  const served = {} as AdminPagesBrowser;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    mkdirSync(screenshotsDir, { recursive: true });
    database = await createTestDatabase('sqlite');
    served.app = await buildTestApp(database, options.env, options.build);
    await prepare(served.app);
    await served.app.listen({ port: 0, host: '127.0.0.1' });
    served.baseUrl = `http://127.0.0.1:${(served.app.server.address() as AddressInfo).port}`;
    served.browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await served.browser?.close();
    await served.app?.close();
    await database?.dispose();
  });
  return served;
}

/** Saves a full-page screenshot as `<screenshotsDir><name>.png`. */
export async function snap(screenshotsDir: string, page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${screenshotsDir}${name}.png`, fullPage: true });
}

/** Signs the player in with dev auth (`dev:<name>`) and submits a run of the `score` adapter, expecting it accepted. */
export async function submitScoreRun(baseUrl: string, gameId: string, name: string, runId: string, payload: Record<string, unknown>): Promise<void> {
  const exchange = await fetch(`${baseUrl}/v1/games/${gameId}/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorizationCode: `dev:${name}` }),
  });
  const { accessToken } = (await exchange.json()) as { accessToken: string };
  const run = await fetch(`${baseUrl}/v1/games/${gameId}/runs/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ runId, payload }),
  });
  expect(run.status).toBe(200);
}
