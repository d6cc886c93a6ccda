import { existsSync } from 'node:fs';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, routeTable, type TestDatabase } from '@playstack/server-kit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { committedDocument, dashboardRoutes, signedOutRoutes } from '../support/route-security.js';
import { buildTestApp } from '../support/test-app.js';

// What keeps the per-group security files complete: no route escapes the document they read,
// and no route of the dashboard API is outside a group that has a file.

let database: TestDatabase;
let app: App;
beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app?.close();
  await database?.dispose();
});

const document = committedDocument();
const documented = new Set(
  Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)),
);

it('documents every /api/ route Fastify answers in the committed OpenAPI document (a hidden route would escape the security checks)', () => {
  const undocumented = routeTable(app).filter((route) => route.split(' ')[1]!.startsWith('/api/') && !documented.has(route));
  expect(undocumented).toEqual([]);
});

it('puts every dashboard API route in exactly one group that has a test/security/<group>.security.test.ts', () => {
  const ungrouped = dashboardRoutes(document)
    .filter((route) => route.tags.length !== 1 || !existsSync(new URL(`./${route.tags[0]}.security.test.ts`, import.meta.url)))
    .map((route) => `${route.method} ${route.path} (tags: ${route.tags.join(', ') || 'none'})`);
  expect(ungrouped).toEqual([]);
});

it('lets signed-out browsers call only routes that exist', () => {
  expect([...signedOutRoutes].filter((route) => !documented.has(route))).toEqual([]);
});
