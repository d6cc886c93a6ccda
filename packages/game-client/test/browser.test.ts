import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, launchChromium, type TestDatabase } from '@playstack/server-kit/testing';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

// The library's browser entry point in headless Chromium: Web Crypto run ids, fetch,
// localStorage as the default storage, a reload as the restart. Each source file is served
// as a native ES module (types stripped, nothing bundled), so the page fails to load if the
// entry point reaches a Node built-in or anything outside the package.

const sourceRoot = fileURLToPath(new URL('../src', import.meta.url));

function browserModules(directory = sourceRoot): Record<string, { contentType: string; body: string }> {
  return Object.assign(
    {},
    ...readdirSync(directory).map((name) => {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) return browserModules(path);
      const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      return { [`/lib/${relative(sourceRoot, path).replace(/\.ts$/, '.js')}`]: { contentType: 'text/javascript', body: outputText } };
    }),
  );
}

let database: TestDatabase;
let harness: GameServiceHarness;
let browser: Browser;
beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  harness = await startGameService(database, {}, {
    '/': {
      contentType: 'text/html',
      body: '<!doctype html><title>game</title><script type="module">import * as library from "/lib/index.js"; window.gameClientLibrary = library;</script>',
    },
    ...browserModules(),
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await harness.close();
  await database.dispose();
});

/** What the page's globals hold (the type checker knows no DOM here). */
interface PageGlobals {
  gameClientLibrary: typeof import('../src/index.js');
  location: { origin: string };
  localStorage: { getItem(key: string): string | null };
}

/** A new page of the test origin, once the library has loaded there (as `gameClientLibrary`). */
async function openLibraryPage(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${harness.proxy.baseUrl}/`);
  await page.waitForFunction(() => 'gameClientLibrary' in globalThis);
  return page;
}

it('queues a run in localStorage, survives a page reload, and sends it once signed in', async () => {
  const page = await openLibraryPage();
  const queued = await page.evaluate(async () => {
    const { gameClientLibrary, location, localStorage } = globalThis as unknown as PageGlobals;
    const { createGameClient } = gameClientLibrary;
    const client = createGameClient({ baseUrl: location.origin, gameId: 'demo' });
    const { runId } = await client.submitRun('score', { score: 321, durationMs: 4000 });
    return { runId, stored: localStorage.getItem('playstack:run-queue') };
  });
  expect(queued.stored).toContain(queued.runId);

  await page.reload();
  await page.waitForFunction(() => 'gameClientLibrary' in globalThis);
  const sent = await page.evaluate(async () => {
    const { gameClientLibrary, location, localStorage } = globalThis as unknown as PageGlobals;
    const { createGameClient } = gameClientLibrary;
    const client = createGameClient({ baseUrl: location.origin, gameId: 'demo' });
    const signIn = await client.signIn(async () => 'dev:browser-player');
    const report = await client.flush();
    const me = await client.myRank('high-score');
    return { signIn: signIn.status, report, score: me.entry?.score, keys: Object.keys(localStorage) };
  });
  expect(sent).toEqual({
    signIn: 'signed-in',
    report: expect.objectContaining({ accepted: 1, remaining: 0 }),
    score: 321,
    keys: ['playstack:session:demo'],
  });
  await page.close();
});

it('keeps both runs when two games on one page submit at once with the default localStorage', async () => {
  const page = await openLibraryPage();
  const result = await page.evaluate(async () => {
    const { gameClientLibrary, location, localStorage } = globalThis as unknown as PageGlobals;
    const { createGameClient } = gameClientLibrary;
    const demo = createGameClient({ baseUrl: location.origin, gameId: 'demo' });
    const tiles = createGameClient({ baseUrl: location.origin, gameId: 'tiles' });
    const submitted = await Promise.all(
      Array.from({ length: 6 }, (_, index) => (index % 2 ? tiles : demo).submitRun('score', { score: index, durationMs: 4000 })),
    );
    const stored = JSON.parse(localStorage.getItem('playstack:run-queue') ?? '{"runs":[]}') as { runs: { runId: string }[] };
    return { submitted: submitted.map(({ runId }) => runId).sort(), stored: stored.runs.map(({ runId }) => runId).sort() };
  });
  expect(result.stored).toHaveLength(6);
  expect(result.stored).toEqual(result.submitted);
  await page.close();
});
