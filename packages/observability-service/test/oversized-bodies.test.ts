import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { createTestDatabase, sendWholeBodyThenRead, type TestDatabase } from '@playstack/server-kit/testing';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'oversized-ingest-key-0123456789';
/** Large enough that a body over it cannot sit in the kernel's socket buffers. */
const bodyLimitBytes = 1024 * 1024;

describe('an ingest body over the limit, sent whole before the answer is read (real socket)', () => {
  let database: TestDatabase;
  let app: App;
  let url: string;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildTestApp(database, { SERVICE_API_KEY: legacyKey, OBSERVABILITY_BODY_LIMIT_BYTES: String(bodyLimitBytes) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ingest`;
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  const headers = { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' };
  const expectReadable413 = (answer: Awaited<ReturnType<typeof sendWholeBodyThenRead>>) => {
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload-too-large');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  };

  it('is a readable 413 for plain JSON, with or without Content-Length', async () => {
    const body = Buffer.from(JSON.stringify({ protocol: 1, pad: 'x'.repeat(3 * bodyLimitBytes) }));
    for (const chunkBytes of [undefined, 64 * 1024]) expectReadable413(await sendWholeBodyThenRead({ url, headers, body, chunkBytes }));
  });

  it('is a readable 413 for gzip over the limit on the wire', async () => {
    // Random bytes do not compress: the gzip body stays three times the limit.
    const body = gzipSync(randomBytes(3 * bodyLimitBytes));
    expectReadable413(await sendWholeBodyThenRead({ url, headers: { ...headers, 'content-encoding': 'gzip' }, body }));
  });

  it('is a readable 413 for gzip that decompresses past the limit', async () => {
    const body = gzipSync(Buffer.alloc(20 * bodyLimitBytes, ' '));
    expectReadable413(await sendWholeBodyThenRead({ url, headers: { ...headers, 'content-encoding': 'gzip' }, body }));
  });

  it('is a readable 401 for a large body without a key', async () => {
    const answer = await sendWholeBodyThenRead({ url, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(3 * bodyLimitBytes, ' ') });
    expect(answer.status).toBe(401);
  });
});
