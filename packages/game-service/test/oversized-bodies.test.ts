import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, sendWholeBodyThenRead, type TestDatabase } from '@playstack/server-kit/testing';
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

/** Large enough that a body over it cannot sit in the kernel's socket buffers. */
const bodyLimitBytes = 1024 * 1024;

describe('a body over the limit, sent whole before the answer is read (real socket)', () => {
  let database: TestDatabase;
  let app: App;
  let base: string;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database, { GAME_BODY_LIMIT_BYTES: String(bodyLimitBytes) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  const oversizedJson = Buffer.from(JSON.stringify({ runId: 'run-00000001', payload: { pad: 'x'.repeat(3 * bodyLimitBytes) } }));

  it('is a readable 413 on run submission, with or without Content-Length', async () => {
    const session = await devSignIn(app, 'demo', 'big-sender');
    for (const chunkBytes of [undefined, 64 * 1024]) {
      const answer = await sendWholeBodyThenRead({
        url: `${base}/v1/games/demo/runs/score`,
        headers: { 'content-type': 'application/json', ...bearer(session.accessToken) },
        body: oversizedJson,
        chunkBytes,
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('payload-too-large');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('is a readable 413 on the admin forms', async () => {
    const answer = await sendWholeBodyThenRead({
      url: `${base}/admin/login`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: Buffer.from(`email=a%40b.c&password=${'x'.repeat(3 * bodyLimitBytes)}`),
    });
    expect(answer.status).toBe(413);
  });
});
