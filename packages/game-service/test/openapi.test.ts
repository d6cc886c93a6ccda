import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, servedAndCommittedOpenApi, type TestDatabase } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

let database: TestDatabase;
let app: App;
beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  app = await buildTestApp(database);
});
afterAll(async () => {
  await app.close();
  await database.dispose();
});

it('serves an OpenAPI 3.1 document declaring version 0.1.0', async () => {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.json()).toMatchObject({ openapi: '3.1.0', info: { version: '0.1.0' } });
});

it('serves the same document as the committed copy (run `npm run openapi:write` after changing routes)', async () => {
  const { served, committed } = await servedAndCommittedOpenApi(app, new URL('../openapi.json', import.meta.url));
  expect(served).toEqual(committed);
});
