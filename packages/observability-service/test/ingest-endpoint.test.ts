import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants, type TestDatabase } from '@playstack/server-kit/testing';
import { ingestionTotals } from '../src/storage/ingestion-counters.js';
import { createIngestionKey, revokeIngestionKeyById } from '../src/keys/ingestion-keys.js';
import { envelope, fullOccurrence, minimalOccurrence } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'legacy-ingest-key-0123456789';
const now = '2026-11-21T10:00:30.000Z';
const startedAt = '2026-11-21T10:00:00.000Z';

describeEachDatabase('POST /api/v1/ingest', (database) => {
  const clock = new ManualClock(now);
  let app: App;
  let key: string;
  beforeAll(async () => {
    app = await buildTestApp(
      database(),
      { SERVICE_API_KEY: legacyKey, INGEST_MAX_OCCURRENCES: '50', OBSERVABILITY_BODY_LIMIT_BYTES: String(64 * 1024), INGEST_RATE_LIMIT_PER_SECOND: '1000' },
      { clock },
    );
    key = (await createIngestionKey(app.database.db, { name: 'test', createdBy: null, now: clock.now() })).key;
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  const stored = (traceId: string) => app.database.db.selectFrom('occurrences').selectAll().where('trace_id', '=', traceId).execute();

  it('stores every field of an accepted occurrence and answers 202 with the counts', async () => {
    const occurrence = fullOccurrence(startedAt, { traceId: 'AB'.repeat(16) });
    const response = await post(envelope([occurrence], { service: 'game-api', environment: 'production', version: '1.4.2', instance: 'pod-7' }));
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ accepted: { occurrences: 1, logs: 0 }, rejected: { occurrences: 0, logs: 0 }, truncated: { strings: 0 }, errors: [] });
    const [row] = await stored('ab'.repeat(16));
    expect(row).toMatchObject({
      client_id: 'occ-1',
      span_id: occurrence.spanId,
      parent_span_id: occurrence.parentSpanId,
      service: 'game-api',
      environment: 'production',
      service_version: '1.4.2',
      instance: 'pod-7',
      operation: 'GET /players/:id',
      kind: 'server',
      started_at: Date.parse(startedAt),
      duration_ms: 12.5,
      status: 'error',
      tenant_id: 'acme',
      http_method: 'GET',
      http_route: '/players/:id',
      http_status_code: 500,
      db_system: 'postgresql',
      db_statement: "SELECT * FROM players WHERE id = 42 AND name = 'x'",
      db_operation: 'SELECT',
      peer_service: 'player-db',
      peer_address: 'db.internal:5432',
      error_type: 'TimeoutError',
      error_message: 'query timed out',
      received_at: clock.now(),
    });
    expect(row?.db_statement_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.parse(row?.attributes ?? 'null')).toEqual({ 'game.mode': 'ranked', 'retry.count': 2, cached: false });
  });

  it('keeps the valid occurrences of an envelope and reports each refused one by index', async () => {
    const good = minimalOccurrence(startedAt);
    const response = await post(
      envelope([good, { ...minimalOccurrence(startedAt), kind: 'sideways' }, minimalOccurrence(startedAt), 'not an object', { ...minimalOccurrence(startedAt), traceId: 'xyz' }]),
    );
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body.accepted).toEqual({ occurrences: 2, logs: 0 });
    expect(body.rejected).toEqual({ occurrences: 3, logs: 0 });
    expect(body.errors.map((error: { index: number }) => error.index)).toEqual([1, 3, 4]);
    expect(body.errors[0].message).toMatch(/kind must be one of server, client, internal, producer, consumer/);
    expect(body.errors[1].message).toMatch(/must be object/);
    expect(body.errors[2].message).toMatch(/traceId/);
    expect(await stored(String(good.traceId))).toHaveLength(1);
  });

  it('counts accepted and refused items per receipt minute for the health view', async () => {
    const totals = () => ingestionTotals(app.database.db, clock.now() - 60_000, clock.now() + 60_000);
    const before = await totals();
    await post(envelope([minimalOccurrence(startedAt), { ...minimalOccurrence(startedAt), status: 'maybe' }, minimalOccurrence(startedAt)]));
    expect(await totals()).toEqual({ accepted: before.accepted + 2, refused: before.refused + 1 });
  });

  it('accepts a charset parameter on the JSON media type', async () => {
    const response = await post(envelope([minimalOccurrence(startedAt)]), { 'content-type': 'application/json; charset=utf-8' });
    expect(response.json().accepted).toEqual({ occurrences: 1, logs: 0 });
  });

  it('answers a retryable 503 and keeps nothing when the store cannot commit', async () => {
    const db = app.database.db;
    const occurrence = minimalOccurrence(startedAt);
    await db.schema.alterTable('occurrences').renameTo('occurrences_away').execute();
    try {
      const response = await post(envelope([occurrence]));
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('storage-unavailable');
      expect(response.headers['retry-after']).toBe('1');
    } finally {
      await db.schema.alterTable('occurrences_away').renameTo('occurrences').execute();
    }
    expect(await stored(String(occurrence.traceId))).toHaveLength(0);
    expect((await post(envelope([occurrence]))).statusCode).toBe(202);
  });

  it('commits envelopes that arrive together in shared transactions (group commit)', async () => {
    const counter = async (name: string) => {
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    };
    const [transactions, envelopes] = [await counter('observability_ingest_transactions_total'), await counter('observability_ingest_envelopes_committed_total')];
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(envelope([minimalOccurrence(startedAt), minimalOccurrence(startedAt)]))));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(8).fill(202));
    expect((await counter('observability_ingest_envelopes_committed_total')) - envelopes).toBe(8);
    expect((await counter('observability_ingest_transactions_total')) - transactions).toBeLessThan(8);
  });

  it('accepts gzip-compressed envelopes', async () => {
    const occurrence = minimalOccurrence(startedAt);
    const response = await post(gzipSync(JSON.stringify(envelope([occurrence]))), { 'content-encoding': 'gzip' });
    expect(response.statusCode).toBe(202);
    expect(response.json().accepted).toEqual({ occurrences: 1, logs: 0 });
    expect(await stored(String(occurrence.traceId))).toHaveLength(1);
  });

  it('refuses corrupt gzip with 400 and unknown encodings and media types with 415', async () => {
    expect((await post(Buffer.from('not gzip'), { 'content-encoding': 'gzip' })).json().error.code).toBe('invalid-request');
    const brotli = await post(JSON.stringify(envelope([])), { 'content-encoding': 'br' });
    expect(brotli.statusCode).toBe(415);
    expect(brotli.json().error.code).toBe('unsupported-media-type');
    const text = await post('protocol=1', { 'content-type': 'text/plain' });
    expect(text.statusCode).toBe(415);
  });

  describe('limits', () => {
    it('answers 413 for a body over the byte limit', async () => {
      const big = envelope([minimalOccurrence(startedAt, { attributes: { blob: 'x'.repeat(1000) } })]);
      const response = await post(JSON.stringify({ ...big, padding: 'y'.repeat(70 * 1024) }));
      expect(response.statusCode).toBe(413);
      expect(response.json().error.code).toBe('payload-too-large');
    });

    it('answers 413 when a small gzip body decompresses past the limit', async () => {
      const bomb = gzipSync(JSON.stringify({ ...envelope([]), padding: ' '.repeat(1024 * 1024) }));
      expect(bomb.length).toBeLessThan(64 * 1024);
      const response = await post(bomb, { 'content-encoding': 'gzip' });
      expect(response.statusCode).toBe(413);
      expect(response.json().error.code).toBe('payload-too-large');
    });

    it('answers 413 for more occurrences than configured and stores none of them', async () => {
      const occurrences = Array.from({ length: 51 }, () => minimalOccurrence(startedAt));
      const response = await post(envelope(occurrences));
      expect(response.statusCode).toBe(413);
      expect(response.json().error.message).toMatch(/at most 50 occurrences/);
      expect(await stored(String(occurrences[0]!.traceId))).toHaveLength(0);
    });

    it('accepts exactly the configured number of occurrences', async () => {
      const response = await post(envelope(Array.from({ length: 50 }, () => minimalOccurrence(startedAt))));
      expect(response.json().accepted).toEqual({ occurrences: 50, logs: 0 });
    });
  });

  describe('bodies that are not envelopes', () => {
    it.each([
      ['an array', []],
      ['a number', 42],
      ['another protocol version', { ...envelope([]), protocol: 2 }],
      ['no resource', { protocol: 1, sentAt: now, occurrences: [] }],
      ['a resource without a service', envelope([], { environment: 'production' })],
      ['an empty service name', envelope([], { service: '', environment: 'production' })],
      ['occurrences that are not a list', { ...envelope([]), occurrences: {} }],
      ['a malformed sentAt', { ...envelope([]), sentAt: 'yesterday' }],
    ])('answers 400 invalid-envelope for %s', async (_name, body) => {
      const response = await post(body);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid-envelope', requestId: response.headers['x-request-id'] });
    });

    it.each([
      ['2', { ...envelope([]), protocol: 2 }, 'unsupported protocol version 2: this server accepts protocol 1'],
      ['2 without the members of protocol 1', { protocol: 2, events: [] }, 'unsupported protocol version 2: this server accepts protocol 1'],
      ['"1" as a string', { ...envelope([]), protocol: '1' }, 'unsupported protocol version "1": this server accepts protocol 1'],
    ])('names an unsupported protocol version (%s) before anything else', async (_name, body, reason) => {
      const response = await post(body);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toBe(`The body is not a protocol v1 envelope: ${reason}.`);
    });

    it('answers 400 invalid-request for malformed JSON', async () => {
      const response = await post('{"protocol":1,');
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid-request');
    });

    it('ignores members it does not know, so protocol 1 can grow', async () => {
      const response = await post({ ...envelope([minimalOccurrence(startedAt, { future: { x: 1 } })]), compression: 'none' });
      expect(response.json().accepted).toEqual({ occurrences: 1, logs: 0 });
    });
  });

  describe('authentication', () => {
    it('answers 401 without a key, with an unknown key and with a revoked key', async () => {
      const body = JSON.stringify(envelope([minimalOccurrence(startedAt)]));
      const missing = await app.inject({ method: 'POST', url: '/api/v1/ingest', headers: { 'content-type': 'application/json' }, payload: body });
      expect(missing.statusCode).toBe(401);
      expect(missing.json().error.code).toBe('unauthorized');
      expect(missing.headers['www-authenticate']).toBe('Bearer');
      expect((await post(body, { authorization: 'Bearer obsk_00000000_unknown' })).statusCode).toBe(401);

      const revoked = await createIngestionKey(app.database.db, { name: 'revoked', createdBy: null, now: clock.now() });
      expect((await post(body, { authorization: `Bearer ${revoked.key}` })).statusCode).toBe(202);
      await revokeIngestionKeyById(app.database.db, revoked.id, clock.now());
      await app.ingestionKeys.keysChanged();
      expect((await post(body, { authorization: `Bearer ${revoked.key}` })).statusCode).toBe(401);
    });

    it('accepts the legacy SERVICE_API_KEY', async () => {
      const occurrence = minimalOccurrence(startedAt);
      const response = await post(envelope([occurrence]), { authorization: `Bearer ${legacyKey}` });
      expect(response.statusCode).toBe(202);
      expect(await stored(String(occurrence.traceId))).toHaveLength(1);
    });
  });

  it('writes the operation, tenant, statement and dependency rollups with the raw rows', async () => {
    const resource = { service: 'rollup-svc', environment: 'staging' };
    const minute = Date.parse('2026-11-21T10:00:00.000Z');
    const occurrences = [
      fullOccurrence(startedAt, { kind: 'client', operation: 'load player', durationMs: 10, status: 'ok', db: { system: 'postgresql', statement: 'SELECT * FROM p WHERE id = 1' }, tenantId: 't1' }),
      fullOccurrence('2026-11-21T10:00:59.999Z', { kind: 'client', operation: 'load player', durationMs: 30, status: 'error', db: { system: 'postgresql', statement: 'SELECT * FROM p WHERE id = 2' }, tenantId: 't1' }),
    ];
    expect((await post(envelope(occurrences, resource))).json().accepted).toEqual({ occurrences: 2, logs: 0 });
    const db = app.database.db;
    const figures = { minute, count: 2, error_count: 1, duration_sum_ms: 40, duration_max_ms: 30 };
    expect(await db.selectFrom('operation_rollups').selectAll().where('service', '=', 'rollup-svc').execute()).toEqual([
      { ...figures, service: 'rollup-svc', environment: 'staging', operation: 'load player', kind: 'client', span_role: 'child', histogram: expect.any(String), error_histogram: expect.stringMatching(/^\d+:1$/) },
    ]);
    expect(await db.selectFrom('tenant_rollups').select(['tenant_id', 'count', 'error_count']).where('service', '=', 'rollup-svc').execute()).toEqual([
      { tenant_id: 't1', count: 2, error_count: 1 },
    ]);
    expect(await db.selectFrom('statement_rollups').select(['statement', 'db_operation', 'count']).where('service', '=', 'rollup-svc').execute()).toEqual([
      { statement: 'SELECT * FROM p WHERE id = ?', db_operation: 'SELECT', count: 2 },
    ]);
    expect(await db.selectFrom('dependency_rollups').select(['target', 'target_kind', 'count', 'error_count']).where('source_service', '=', 'rollup-svc').execute()).toEqual([
      { target: 'player-db', target_kind: 'service', count: 2, error_count: 1 },
    ]);
  });
});

describeEachDatabase('ingest rate limit', (database) => {
  for (const variant of redisVariants()) {
    describe(variant.name, () => rateLimitSuite(database, variant.env));
  }
});

function rateLimitSuite(database: () => TestDatabase, redisEnv: () => Record<string, string>): void {
  const clock = new ManualClock(now);
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { ...redisEnv(), SERVICE_API_KEY: legacyKey, INGEST_RATE_LIMIT_PER_SECOND: '2' }, { clock });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 429 with Retry-After when a key exceeds its rate, and accepts again in the next window', async () => {
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/ingest',
        headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify(envelope([minimalOccurrence(startedAt)])),
      });
    expect((await send()).statusCode).toBe(202);
    expect((await send()).statusCode).toBe(202);
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate-limited');
    expect(limited.headers['retry-after']).toBe('1');
    clock.advance(1000);
    expect((await send()).statusCode).toBe(202);
  });
}

describeEachDatabase('large envelopes', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey }, { clock: new ManualClock(now) });
  });
  afterAll(async () => {
    await app.close();
  });

  it('stores an envelope of 2,500 occurrences, more than one insert statement holds', async () => {
    const occurrences = Array.from({ length: 2500 }, (_, i) => minimalOccurrence(startedAt, { operation: `op-${i % 7}`, durationMs: i }));
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(envelope(occurrences, { service: 'bulk', environment: 'production' })),
    });
    expect(response.json().accepted).toEqual({ occurrences: 2500, logs: 0 });
    const db = app.database.db;
    const stored = await db.selectFrom('occurrences').select(['trace_id', 'duration_ms']).where('service', '=', 'bulk').orderBy('duration_ms').execute();
    expect(stored.map((row) => row.duration_ms)).toEqual(occurrences.map((_, i) => i));
    expect(new Set(stored.map((row) => row.trace_id))).toEqual(new Set(occurrences.map((occurrence) => occurrence.traceId)));
    const rolledUp = await db.selectFrom('operation_rollups').select((eb) => eb.fn.sum('count').as('n')).where('service', '=', 'bulk').executeTakeFirstOrThrow();
    expect(Number(rolledUp.n)).toBe(2500);
  });
});
