import type { App } from '@playstack/server-kit';
import { createTestDatabase, routeTable, type TestDatabase } from '@playstack/server-kit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdminBrowser } from '../support/admin-browser-session.js';
import { buildTestApp } from '../support/test-app.js';

// One shared set of checks against every route of the operators' pages under /admin, read from
// Fastify's route table (the pages are hidden from the OpenAPI document), so a page added
// without protection fails here without anyone listing it.

/** The only admin routes a signed-out browser may use. */
const signedOutRoutes = new Set(['GET /admin/login', 'POST /admin/login', 'GET /admin/register', 'POST /admin/register', 'GET /admin/assets/admin.css']);

let database: TestDatabase;
let app: App;
let routes: Array<{ name: string; method: string; url: string }>;
let operator: AdminBrowser;

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = await buildTestApp(database);
  // Path parameters get a placeholder: a page must refuse before it looks anything up.
  routes = routeTable(app)
    .filter((route) => route.split(' ')[1]!.startsWith('/admin'))
    .map((name) => {
      const [method, path] = name.split(' ') as [string, string];
      return { name, method, url: path.replace(/\{\w+\}/g, 'placeholder') };
    });
  operator = new AdminBrowser(app);
  expect((await operator.register({ email: 'ops@example.com', name: 'Ops', password: 'correct horse battery staple' })).statusCode).toBe(303);
});
afterAll(async () => {
  await app?.close();
  await database?.dispose();
});

const isStateChanging = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

it('finds the admin routes in the route table, the signed-out ones among them', () => {
  expect(routes.length).toBeGreaterThan(signedOutRoutes.size);
  expect([...signedOutRoutes].filter((name) => !routes.some((route) => route.name === name))).toEqual([]);
});

it('answers every protected admin route signed out (no cookie, or one of no session) with 401 unauthorized for JSON, a redirect to sign-in for a page', async () => {
  const failures: string[] = [];
  for (const route of routes.filter((r) => !signedOutRoutes.has(r.name))) {
    for (const cookie of ['', 'admin_session=not-a-session']) {
      const json = await app.inject({ method: route.method, url: route.url, headers: { accept: 'application/json', cookie } });
      if (json.statusCode !== 401 || json.json().error?.code !== 'unauthorized') failures.push(`${route.name} (JSON, cookie '${cookie}'): ${json.statusCode}`);
      if (route.method === 'GET') {
        const page = await app.inject({ method: 'GET', url: route.url, headers: { accept: 'text/html', cookie } });
        if (page.statusCode !== 303 || !String(page.headers.location).startsWith('/admin/login')) failures.push(`${route.name} (page, cookie '${cookie}'): ${page.statusCode}`);
      }
    }
  }
  expect(failures).toEqual([]);
});

it("answers every state-changing admin route 403 csrf-failed to a signed-in operator without the session's CSRF token, or with another", async () => {
  const failures: string[] = [];
  for (const route of routes.filter((r) => isStateChanging(r.method))) {
    for (const csrf of [null, 'not-the-token']) {
      const response = await operator.post(route.url, {}, { csrf, accept: 'application/json' });
      if (route.method !== 'POST') throw new Error(`${route.name}: the admin pages post forms; extend this check for ${route.method}`);
      if (response.statusCode !== 403 || response.json().error?.code !== 'csrf-failed') failures.push(`${route.name} (token ${csrf}): ${response.statusCode}`);
    }
  }
  expect(failures).toEqual([]);
});
