import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createServer, defineErrorCodes, type App } from '../src/index.js';
import { CapturedLogs, sendWholeBodyThenRead } from '../src/testing/index.js';

/** A service's own code, declared as a service declares it. */
const serviceErrorCodes = defineErrorCodes({ 'run-id-conflict': 409 });

declare module '../src/index.js' {
  interface ServiceErrorCodes extends Readonly<typeof serviceErrorCodes> {}
}

const maxBodyBytes = 1024;
/** The same route at the root and in a plugin with schemas of its own. */
const itemsPaths = ['/items', '/scoped/items'];

async function buildErrorTestApp(): Promise<App> {
  const app = createServer({ logLevel: 'silent', trustProxy: false, bodyLimitBytes: maxBodyBytes });
  const itemsRoute = {
    schema: {
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 8 }), count: Type.Integer() }, { additionalProperties: false }),
      querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
    },
  };
  // Shared by two routes, so typed by hand: the query schema above makes `limit` an integer or absent.
  const echoItem = async (request: { body: unknown; query: unknown }) => ({ received: request.body, limit: (request.query as { limit?: number }).limit ?? null });
  app.post('/items', itemsRoute, echoItem);
  // A plugin that adds a shared schema gets a validator built for its own context: it must be as
  // strict as the root's (Fastify would otherwise build it with its default Ajv, which drops
  // unknown members and coerces body types).
  await app.register(
    async (scoped) => {
      scoped.addSchema(Type.Object({ id: Type.String() }, { $id: 'ScopedThing' }));
      scoped.post('/items', itemsRoute, echoItem);
    },
    { prefix: '/scoped' },
  );
  app.get('/explode', async () => {
    throw new Error('secret database password leaked in this message');
  });
  app.get('/conflict', async () => {
    throw new ApiError('run-id-conflict', 'The run id was used with different content.');
  });
  app.get('/limited', async () => {
    throw new ApiError('rate-limited', 'Slow down.', { headers: { 'retry-after': '7' } });
  });
  await app.ready();
  return app;
}

describe('the error envelope', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildErrorTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  function expectEnvelope(response: Awaited<ReturnType<App['inject']>>, status: number, code: string) {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(body).toEqual({ error: { code, message: expect.any(String), requestId: response.headers['x-request-id'] } });
    expect(body.error.message.length).toBeGreaterThan(0);
    return body.error as { code: string; message: string; requestId: string };
  }

  it('answers an unknown route with 404 not-found', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere?x=1' });
    expect(expectEnvelope(response, 404, 'not-found').message).toContain('/nowhere');
  });

  it('answers malformed JSON with 400 invalid-request', async () => {
    const response = await app.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expectEnvelope(response, 400, 'invalid-request');
  });

  it('answers an empty JSON body with 400 invalid-request', async () => {
    const response = await app.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'application/json' }, payload: '' });
    expectEnvelope(response, 400, 'invalid-request');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('answers content type %s with 415', async (type) => {
    const response = await app.inject({ method: 'POST', url: '/items', headers: { 'content-type': type }, payload: 'name=a' });
    expectEnvelope(response, 415, 'unsupported-media-type');
  });

  it('answers a body over the limit with 413 payload-too-large', async () => {
    const payload = JSON.stringify({ name: 'a', count: 1, pad: 'x'.repeat(maxBodyBytes) });
    const response = await app.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'application/json' }, payload });
    expectEnvelope(response, 413, 'payload-too-large');
  });

  it.each(itemsPaths)('names the offending field of a schema violation (%s)', async (items) => {
    const response = await app.inject({ method: 'POST', url: items, payload: { name: 'toolongname', count: 1 } });
    expect(expectEnvelope(response, 400, 'invalid-request').message).toContain('body.name');
  });

  it.each(itemsPaths)('names a missing required member (%s)', async (items) => {
    const response = await app.inject({ method: 'POST', url: items, payload: { name: 'a' } });
    expect(expectEnvelope(response, 400, 'invalid-request').message).toBe('body.count is required');
  });

  it.each(itemsPaths)('refuses unknown members where additional properties are not allowed (%s)', async (items) => {
    const response = await app.inject({ method: 'POST', url: items, payload: { name: 'a', count: 1, admin: true } });
    expect(expectEnvelope(response, 400, 'invalid-request').message).toContain('"admin"');
  });

  it.each(itemsPaths)('does not coerce body types: a string where an integer is required is refused (%s)', async (items) => {
    const response = await app.inject({ method: 'POST', url: items, payload: { name: 'a', count: '5' } });
    expect(expectEnvelope(response, 400, 'invalid-request').message).toContain('body.count');
  });

  it.each(itemsPaths)('coerces query strings and checks their bounds (%s)', async (items) => {
    const ok = await app.inject({ method: 'POST', url: `${items}?limit=5`, payload: { name: 'a', count: 1 } });
    expect(ok.json()).toEqual({ received: { name: 'a', count: 1 }, limit: 5 });
    const bad = await app.inject({ method: 'POST', url: `${items}?limit=101`, payload: { name: 'a', count: 1 } });
    expect(expectEnvelope(bad, 400, 'invalid-request').message).toContain('querystring.limit');
  });

  it('answers an unexpected exception with 500 internal-error without leaking its message', async () => {
    const response = await app.inject({ method: 'GET', url: '/explode' });
    const error = expectEnvelope(response, 500, 'internal-error');
    expect(response.body).not.toContain('secret');
    expect(error.message).not.toContain('password');
  });

  it('answers an ApiError with its code and status', async () => {
    expectEnvelope(await app.inject({ method: 'GET', url: '/conflict' }), 409, 'run-id-conflict');
  });

  it('sends the headers an ApiError carries', async () => {
    const response = await app.inject({ method: 'GET', url: '/limited' });
    expectEnvelope(response, 429, 'rate-limited');
    expect(response.headers['retry-after']).toBe('7');
  });
});

describe('request ids', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildErrorTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('reuses a valid incoming X-Request-Id and echoes it', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'abc.DEF_1:2-3' } });
    expect(response.headers['x-request-id']).toBe('abc.DEF_1:2-3');
    expect(response.json().error.requestId).toBe('abc.DEF_1:2-3');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'has space'],
    ['with a slash', 'a/b'],
  ])('generates a new id when the incoming one is invalid (%s)', async (_why, incoming) => {
    const response = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': incoming } });
    const id = response.headers['x-request-id'];
    expect(id).not.toBe(incoming);
    expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('accepts an id of exactly 128 characters', async () => {
    const incoming = 'b'.repeat(128);
    const response = await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': incoming } });
    expect(response.headers['x-request-id']).toBe(incoming);
  });

  it('echoes the id on successful responses too', async () => {
    const response = await app.inject({ method: 'POST', url: '/items', payload: { name: 'a', count: 1 } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('X-Content-Type-Options', () => {
  let app: App;
  beforeAll(async () => {
    app = await buildErrorTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('is nosniff on successes, refusals, unknown routes and unexpected errors alike', async () => {
    const responses = await Promise.all([
      app.inject({ method: 'POST', url: '/items', payload: { name: 'a', count: 1 } }),
      app.inject({ method: 'POST', url: '/items', payload: { name: 'a' } }),
      app.inject({ method: 'POST', url: '/items', headers: { 'content-type': 'text/plain' }, payload: 'x' }),
      app.inject({ method: 'GET', url: '/nowhere' }),
      app.inject({ method: 'GET', url: '/explode' }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 400, 415, 404, 500]);
    for (const response of responses) expect(response.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('errors raised by libraries with a client status', () => {
  const logs = new CapturedLogs();
  let app: App;
  beforeAll(async () => {
    app = createServer({ logLevel: 'info', trustProxy: false, bodyLimitBytes: maxBodyBytes, logStream: logs });
    // What @fastify/send raises for a `..` path and for a Range it cannot satisfy.
    app.get('/forbidden', async () => {
      throw Object.assign(new Error('Forbidden'), { status: 403, statusCode: 403, expose: true });
    });
    app.get('/range', async () => {
      throw Object.assign(new Error('Range Not Satisfiable'), { status: 416, statusCode: 416, expose: true });
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers them with the code of their status, or invalid-request, and logs them at info', async () => {
    const forbidden = await app.inject({ method: 'GET', url: '/forbidden' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('forbidden');
    const range = await app.inject({ method: 'GET', url: '/range' });
    expect(range.statusCode).toBe(400);
    expect(range.json().error.code).toBe('invalid-request');
    expect(logs.atLeast('warn')).toEqual([]);
    expect(logs.lines.filter((line) => line.msg === 'refused request')).toHaveLength(2);
  });
});

describe('over a real socket', () => {
  /** Large enough that a body over it cannot sit in the kernel's socket buffers. */
  const socketBodyLimitBytes = 1024 * 1024;
  let app: App;
  let base: string;
  beforeAll(async () => {
    app = createServer({ logLevel: 'silent', trustProxy: false, bodyLimitBytes: socketBodyLimitBytes });
    app.post('/items', async (request) => ({ received: Object.keys(request.body as object).length }));
    app.get('/things/:id', async () => ({ found: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
  });

  const oversized = Buffer.alloc(3 * socketBodyLimitBytes, 'a');

  it.each([
    ['with Content-Length', undefined],
    ['chunked', 64 * 1024],
  ])('answers a body over the limit with a 413 a client sending it whole can read (%s)', async (_how, chunkBytes) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await sendWholeBodyThenRead({ url: `${base}/items`, headers: { 'content-type': 'application/json' }, body: oversized, chunkBytes });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('payload-too-large');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers a large body of the wrong type with a readable 415', async () => {
    const answer = await sendWholeBodyThenRead({ url: `${base}/items`, headers: { 'content-type': 'text/plain' }, body: oversized });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body).error.code).toBe('unsupported-media-type');
  });

  it('keeps the connection open after a refused body it read to the end', async () => {
    const answer = await sendWholeBodyThenRead({ url: `${base}/items`, headers: { 'content-type': 'application/json' }, body: oversized });
    expect(answer.headers.connection).not.toBe('close');
  });

  /**
   * Sends a request head and then body bytes in 64 KiB chunks until the server answers or closes
   * (at most `maxBytes`); answers what arrived, how many body bytes were written, and how long it
   * took.
   */
  const sendUntilAnswered = (head: string, maxBytes: number, chunked: boolean) =>
    new Promise<{ raw: string; sent: number; ms: number; closed: boolean }>((resolve, reject) => {
      const { port } = app.server.address() as AddressInfo;
      const started = performance.now();
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
      let raw = '';
      let sent = 0;
      let closed = false;
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(head);
        const pump = () => {
          while (!closed && raw === '' && sent < maxBytes) {
            sent += chunk.length;
            if (!socket.write(framed)) return void socket.once('drain', pump);
          }
        };
        pump();
      });
      socket.on('data', (data) => (raw += data.toString()));
      socket.on('close', () => {
        closed = true;
        resolve({ raw, sent, ms: performance.now() - started, closed });
      });
      // Past the bound the server closes with the rest of the upload unread: the client may then
      // see a reset (the point of the bound), which ends the exchange like a close.
      socket.on('error', (error: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(error.code ?? '') ? undefined : reject(error)));
    });

  it('answers at once and closes when the declared body is larger than it reads and drops (4 times the limit)', async () => {
    // The head alone: the answer must not wait for a body.
    const answer = await sendUntilAnswered(`POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${10 * socketBodyLimitBytes}\r\n\r\n`, 0, false);
    expect(answer.raw).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.raw.toLowerCase()).toContain('connection: close');
    expect(answer.closed).toBe(true);
    // Well short of the 10 s a stalled body is waited for.
    expect(answer.ms).toBeLessThan(5_000);
  });

  it('reads a chunked body over the limit up to 4 times the limit, then answers and closes, not reading on', async () => {
    const answer = await sendUntilAnswered('POST /items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', 64 * socketBodyLimitBytes, true);
    expect(answer.closed).toBe(true);
    // What reaches this client, which never stops sending, is the 413 or a reset.
    if (answer.raw) expect(answer.raw).toMatch(/^HTTP\/1\.1 413 [^]*connection: close/i);
    // It read about 4 times the limit (plus what sat in socket buffers), never the whole stream.
    expect(answer.sent).toBeGreaterThan(4 * socketBodyLimitBytes);
    expect(answer.sent).toBeLessThan(32 * socketBodyLimitBytes);
    expect(answer.ms).toBeLessThan(5_000);
  });

  it('answers a URL that does not decode with the envelope', async () => {
    const response = await fetch(`${base}/items/%zz`);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = (await response.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code).toBe('invalid-request');
    expect(body.error.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('answers a path parameter over the router limit with 400 invalid-request', async () => {
    const response = await fetch(`${base}/things/${'a'.repeat(500)}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid-request');
  });

  it('answers bytes that are not HTTP with the envelope', async () => {
    const { port } = app.server.address() as AddressInfo;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('invalid-request');
  });
});
