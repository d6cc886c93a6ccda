import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../http/create-server.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * The tests every service's OpenAPI document must pass: it is OpenAPI 3.1 declaring version
 * 0.1.0, and it equals the committed copy (regenerate that with `npm run openapi:write`).
 */
export function describeOpenApiDocument(build: (database: TestDatabase) => Promise<App>, committedFile: URL): void {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await build(database);
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
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.json()).toEqual(JSON.parse(readFileSync(committedFile, 'utf8')));
  });
}
