import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import { build } from 'vite';
import type { App } from '@playstack/server-kit';
import { launchChromium, type TestDatabase } from '@playstack/server-kit/testing';
import { buildApp, loadObservabilityConfig } from '@playstack/observability-service';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
/** Screenshots land here (gitignored), one folder per suite. */
export const screenshotsDir = fileURLToPath(new URL('../../../../test-output/dashboard/', import.meta.url));

/** A dashboard build in a temporary directory, removed by `dispose`. */
export interface DashboardBuild {
  dir: string;
  dispose: () => void;
}

/**
 * Builds the dashboard from its sources into a fresh directory, so the browser tests never run
 * against a stale `dist/`. Takes a couple of seconds.
 */
export async function buildDashboard(): Promise<DashboardBuild> {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-build-'));
  await build({
    configFile: join(packageDir, 'vite.config.ts'),
    root: packageDir,
    logLevel: 'warn',
    build: { outDir: dir, emptyOutDir: true },
  });
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningService {
  app: App;
  baseUrl: string;
}

/** The real observability service on a local port, serving the given dashboard build. */
export async function startService(database: TestDatabase, webDir: string, env: Record<string, string> = {}): Promise<RunningService> {
  const config = loadObservabilityConfig({ LOG_LEVEL: 'silent', ...database.env, OBSERVABILITY_WEB_DIR: webDir, ...env });
  const app = await buildApp(config);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, baseUrl: `http://127.0.0.1:${port}` };
}

/** Empties a suite's screenshot folder, so a failure shot of an earlier run cannot mislead. */
export function clearScreenshots(suite: string): void {
  rmSync(join(screenshotsDir, suite), { recursive: true, force: true });
}

/** Saves a full-page screenshot as `<suite>/<name>.png` under test-output/dashboard/. */
export async function screenshot(page: Page, suite: string, name: string): Promise<void> {
  const dir = join(screenshotsDir, suite);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** Requests held back by `holdRequests`. */
export interface HeldRequests {
  release: () => void;
  stop: () => Promise<void>;
}

/**
 * Holds the page's requests to `pattern` back until `release()`, to see the page while that part of
 * it is still loading; `stop()` routes them normally again.
 */
export async function holdRequests(page: Page, pattern: string): Promise<HeldRequests> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const handler = async (route: Route) => {
    await held;
    await route.continue();
  };
  await page.route(pattern, handler);
  return { release, stop: () => page.unroute(pattern, handler) };
}

/**
 * Releases `held` and checks that `watched`, on screen below what they load, has not moved once
 * `arrived` shows: what loaded late took no more room than its placeholder. `whileHeld` runs
 * before the release (a screenshot of the loading state); the requests then route normally again.
 */
export async function expectStaysPutOnRelease(held: HeldRequests, watched: Locator, arrived: Locator, whileHeld?: () => Promise<void>): Promise<void> {
  const before = await watched.boundingBox();
  await whileHeld?.();
  held.release();
  await arrived.waitFor();
  expect(await watched.boundingBox()).toEqual(before);
  await held.stop();
}

/**
 * Watches a page for what the dashboard must never do: requests to any other origin, CSP
 * violations, uncaught errors. `problems` lists them; tests assert it stays empty.
 */
export function watchPage(page: Page, baseUrl: string): { problems: string[]; apiGets: string[]; stateChanging: Array<{ method: string; url: string; csrf: string | undefined }> } {
  const problems: string[] = [];
  const apiGets: string[] = [];
  const stateChanging: Array<{ method: string; url: string; csrf: string | undefined }> = [];
  const origin = new URL(baseUrl).origin;
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin) problems.push(`external request: ${url}`);
    if (request.method() === 'GET' && new URL(url).pathname.startsWith('/api/')) apiGets.push(new URL(url).pathname);
    if (request.method() !== 'GET' && request.method() !== 'HEAD' && new URL(url).pathname.startsWith('/api/')) {
      stateChanging.push({ method: request.method(), url: new URL(url).pathname, csrf: request.headers()['x-csrf-token'] });
    }
  });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) problems.push(`CSP: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { problems, apiGets, stateChanging };
}

/**
 * A fresh browser context on the dashboard, watched (watchPage), whose first visit sets up the
 * first administrator and lands on the ingestion keys page.
 */
export async function signedInAsFirstAdmin(
  browser: Browser,
  baseUrl: string,
  admin: { name: string; email: string; password: string },
): Promise<{ context: BrowserContext; page: Page; watched: ReturnType<typeof watchPage> }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const watched = watchPage(page, baseUrl);
  await page.goto(new URL('/setup', baseUrl).href);
  await page.getByLabel('Name').fill(admin.name);
  await page.getByLabel('Email').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Create administrator' }).click();
  await page.waitForURL(/\/settings\/keys$/);
  return { context, page, watched };
}

/** The dashboard build and the browser one test file shares across its suites. */
export interface DashboardTools {
  build: DashboardBuild;
  browser: Browser;
}

/**
 * Builds the dashboard and launches Chromium before the file's tests (both at once), and closes them
 * after. The returned object is filled in by the time the tests run.
 */
export function useDashboardTools(launchBrowser: () => Promise<Browser> = launchChromium): DashboardTools {
  const tools = {} as DashboardTools;
  beforeAll(async () => {
    [tools.build, tools.browser] = await Promise.all([buildDashboard(), launchBrowser()]);
  });
  afterAll(async () => {
    await tools.browser?.close();
    tools.build?.dispose();
  });
  return tools;
}

/** What the page showed when a test failed, saved by `shot` as `failed-<test name>` next to the passing steps' screenshots. */
export function screenshotFailures(shot: (name: string) => Promise<void>): void {
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`failed-${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`);
  });
}

/** One suite's service and a browser signed in to it as the first administrator. */
export interface SignedInDashboard {
  /** The screenshot folder: `<name>-<dialect>`. */
  suite: string;
  service: RunningService;
  context: BrowserContext;
  page: Page;
  watched: ReturnType<typeof watchPage>;
  /** The absolute URL of a path on the service. */
  url(path: string): string;
  /** Saves a screenshot of the page under the suite's folder. */
  shot(name: string): Promise<void>;
}

/** How `useSignedInDashboard` starts its service. */
export interface SignedInDashboardOptions {
  /** Names the suite's screenshot folder, before the dialect. */
  name: string;
  admin: { name: string; email: string; password: string };
  env?: Record<string, string>;
  /** Runs once the service listens, before the browser signs in (to send it telemetry). */
  prepare?: (dashboard: SignedInDashboard) => Promise<void>;
  /** How long starting, preparing and signing in may take together. */
  setupTimeoutMs?: number;
}

/**
 * For a describe block: empties its screenshot folder, starts the service on the database serving the
 * dashboard build, prepares it, and signs a fresh browser context in as the first administrator;
 * a failing test leaves a screenshot; the context and service close after the block. The returned
 * object is filled in by the time the tests run.
 */
export function useSignedInDashboard(tools: DashboardTools, database: () => TestDatabase, options: SignedInDashboardOptions): SignedInDashboard {
  const dashboard = {
    url: (path: string) => `${dashboard.service.baseUrl}${path}`,
    shot: (name: string) => screenshot(dashboard.page, dashboard.suite, name),
  } as SignedInDashboard;
  beforeAll(async () => {
    dashboard.suite = `${options.name}-${database().dialect}`;
    clearScreenshots(dashboard.suite);
    dashboard.service = await startService(database(), tools.build.dir, options.env);
    await options.prepare?.(dashboard);
    Object.assign(dashboard, await signedInAsFirstAdmin(tools.browser, dashboard.service.baseUrl, options.admin));
  }, options.setupTimeoutMs);
  screenshotFailures(dashboard.shot);
  afterAll(async () => {
    await dashboard.context?.close();
    await dashboard.service?.app.close();
  });
  return dashboard;
}

/** Sends the envelopes to the ingest endpoint of the service with the key, expecting each accepted (202). */
export async function ingestEnvelopes(baseUrl: string, key: string, envelopes: ReadonlyArray<{ service: string; body: unknown }>): Promise<void> {
  for (const envelope of envelopes) {
    const response = await fetch(`${baseUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(envelope.body),
    });
    expect(response.status, envelope.service).toBe(202);
  }
}
