import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { CapturedLogs, createTestDatabase, describeEachDatabase, freePort, OtlpJsonReceiver, testRedisEnv, type ReceivedSpan, type TestDatabase } from '@playstack/server-kit/testing';
import { FakeGoogle } from './support/fake-google.js';
import { bearer, galaxyGame, manifestWith, storeManifest, type Session } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const spanKind = { internal: 1, server: 2, client: 3 } as const;
const otelVariables = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BLRP_SCHEDULE_DELAY', 'OTEL_EXPORTER_OTLP_TIMEOUT', 'OTEL_LOGS_EXPORTER'] as const;

/** Points the OpenTelemetry SDK at `endpoint` through the standard variables, as an operator would. */
function exportTo(endpoint: string, extra: Record<string, string> = {}): void {
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_BLRP_SCHEDULE_DELAY: '50', ...extra });
}

function stopExporting(): void {
  for (const name of otelVariables) delete process.env[name];
}

async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A W3C traceparent as a game client would send it: a trace of its own, sampled. */
function clientContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * A request body sent in two parts 100 ms apart, as a slow client's: the server reads its end
 * from the socket's events, after the request's hooks ran (not at once from what it had buffered).
 */
function slowBody(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text);
  const half = bytes.length >> 1;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes.slice(0, half));
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.enqueue(bytes.slice(half));
      controller.close();
    },
  });
  return { body, duplex: 'half' };
}

async function signIn(base: string, name: string, traceparent?: string): Promise<Session> {
  const response = await fetch(`${base}/v1/games/demo/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify({ authorizationCode: `dev:${name}` }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Session;
}

describeEachDatabase('game service tracing', (database) => {
  const receiver = new OtlpJsonReceiver();
  const logs = new CapturedLogs();
  const redisEnv = testRedisEnv();
  let app: App;
  let base: string;

  beforeAll(async () => {
    exportTo(await receiver.start());
    app = await buildTestApp(database(), { LOG_LEVEL: 'info', ...redisEnv }, { logStream: logs });
    base = await listen(app);
  });
  afterAll(async () => {
    await app.close();
    stopExporting();
    await receiver.close();
  });

  it('exports a server span per request, parented on the caller\'s traceparent, with the SQL, derivation and Redis spans under it', async () => {
    const client = clientContext();
    const player = await signIn(base, 'traced-alice');
    const response = await fetch(`${base}/v1/games/demo/runs/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: client.traceparent, ...bearer(player.accessToken) },
      body: JSON.stringify({ runId: `run-${randomBytes(6).toString('hex')}`, payload: { score: 1200, durationMs: 60_000 } }),
    });
    expect(response.status).toBe(200);

    const inTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === client.traceId);
    await receiver.waitFor((spans) => inTrace(spans).some((span) => span.kind === spanKind.server));
    const server = inTrace(receiver.spans).find((span) => span.kind === spanKind.server)!;
    expect(server.name).toBe('POST /v1/games/:gameId/runs/:adapterId');
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/games/:gameId/runs/:adapterId',
      'url.path': '/v1/games/demo/runs/score',
      'url.scheme': 'http',
      'http.response.status_code': 200,
    });
    expect(server.resource['service.name']).toBe('game-service');

    await receiver.waitFor((spans) => inTrace(spans).some((span) => span.attributes['db.system'] && span.attributes['db.operation.name'] === 'INSERT'));
    const sql = inTrace(receiver.spans).filter((span) => span.attributes['db.system.name'] === (database().dialect === 'sqlite' ? 'sqlite' : 'postgresql'));
    expect(sql.length).toBeGreaterThan(0);
    const ids = new Set(inTrace(receiver.spans).map((span) => span.spanId));
    for (const span of sql) {
      expect(span.kind).toBe(spanKind.client);
      expect(typeof span.attributes['db.query.text']).toBe('string');
      expect(ids.has(span.parentSpanId!)).toBe(true);
    }
    expect(sql.some((span) => span.parentSpanId === server.spanId)).toBe(true);

    const derive = inTrace(receiver.spans).find((span) => span.name === 'derive bounded-score');
    expect(derive).toMatchObject({ kind: spanKind.internal, parentSpanId: server.spanId, attributes: { 'game.adapter.id': 'score' } });

    if (redisEnv) {
      expect(inTrace(receiver.spans).some((span) => span.attributes['db.system'] === 'redis' && span.parentSpanId === server.spanId)).toBe(true);
    }
    // The request's log lines carry its trace and span ids.
    expect(logs.lines.some((line) => line.trace_id === client.traceId && line.span_id === server.spanId)).toBe(true);
    // ... and are exported as OpenTelemetry log records, tied to the span, where the spans go.
    await receiver.waitFor(() => receiver.logs.some((record) => record.traceId === client.traceId));
    const record = receiver.logs.find((log) => log.traceId === client.traceId)!;
    expect(record.spanId).toBe(server.spanId);
    expect(record.severityText).toBe('INFO');
    expect(record.severityNumber).toBe(9);
    expect(typeof record.body).toBe('string');
    expect(record.resource['service.name']).toBe('game-service');
    expect(record.attributes.trace_id).toBeUndefined();
  });

  it('runs a read without a body (GET) in its server span: its SQL spans under it, its log lines with its ids', async () => {
    const client = clientContext();
    const player = await signIn(base, 'traced-reader');
    const response = await fetch(`${base}/v1/games/demo/leaderboards/high-score/me`, { headers: { traceparent: client.traceparent, ...bearer(player.accessToken) } });
    expect(response.status).toBe(200);

    const inTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === client.traceId);
    await receiver.waitFor((spans) => inTrace(spans).some((span) => span.kind === spanKind.server));
    const server = inTrace(receiver.spans).find((span) => span.kind === spanKind.server)!;
    expect(server.name).toBe('GET /v1/games/:gameId/leaderboards/:boardId/me');
    expect(server.parentSpanId).toBe(client.spanId);
    const sql = inTrace(receiver.spans).filter((span) => span.attributes['db.system'] !== undefined);
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) expect(span.parentSpanId).toBe(server.spanId);
    // The request's log line is written once the response is sent, from the raw response's events.
    await expect.poll(() => logs.lines.filter((line) => line.trace_id === client.traceId).map((line) => line.span_id)).toContain(server.spanId);
  });

  it('runs the handler of a body that arrives after its headers in the request\'s span', async () => {
    const client = clientContext();
    const player = await signIn(base, 'traced-slowpoke');
    const response = await fetch(`${base}/v1/games/demo/runs/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: client.traceparent, ...bearer(player.accessToken) },
      ...slowBody(JSON.stringify({ runId: `run-${randomBytes(6).toString('hex')}`, payload: { score: 1300, durationMs: 60_000 } })),
    } as RequestInit);
    expect(response.status).toBe(200);
    const inTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === client.traceId);
    await receiver.waitFor((spans) => inTrace(spans).some((span) => span.kind === spanKind.server) && inTrace(spans).some((span) => span.attributes['db.operation.name'] === 'INSERT'));
    const server = inTrace(receiver.spans).find((span) => span.kind === spanKind.server)!;
    expect(inTrace(receiver.spans).find((span) => span.name === 'derive bounded-score')?.parentSpanId).toBe(server.spanId);
    const ids = new Set(inTrace(receiver.spans).map((span) => span.spanId));
    for (const span of inTrace(receiver.spans).filter((span) => span !== server)) expect(ids.has(span.parentSpanId!)).toBe(true);
    await expect.poll(() => logs.lines.filter((line) => line.trace_id === client.traceId).map((line) => line.span_id)).toContain(server.spanId);
  });

  it('answers a body it cannot read in the request\'s span: the error an exception event, the log line with its ids', async () => {
    const client = clientContext();
    const player = await signIn(base, 'traced-garbler');
    const response = await fetch(`${base}/v1/games/demo/runs/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: client.traceparent, ...bearer(player.accessToken) },
      ...slowBody('{"runId": "run-garbled", "payload": {'),
    } as RequestInit);
    expect(response.status).toBe(400);
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === client.traceId && span.kind === spanKind.server));
    const server = receiver.spans.find((span) => span.traceId === client.traceId && span.kind === spanKind.server)!;
    expect(server.attributes['http.response.status_code']).toBe(400);
    expect(server.events.some((event) => event.name === 'exception')).toBe(true);
    // The error is found once the body's end arrives: the error handler runs in the span's context all the same.
    await expect.poll(() => logs.lines.filter((line) => line.trace_id === client.traceId).map((line) => line.span_id)).toContain(server.spanId);
  });

  it('starts a trace of its own without a traceparent, and records a client\'s error as an exception event', async () => {
    const response = await fetch(`${base}/v1/games/no-such-game/leaderboards/high-score`);
    expect(response.status).toBe(404);
    await receiver.waitFor((spans) => spans.some((span) => span.attributes['url.path'] === '/v1/games/no-such-game/leaderboards/high-score'));
    const server = receiver.spans.find((span) => span.attributes['url.path'] === '/v1/games/no-such-game/leaderboards/high-score')!;
    expect(server.parentSpanId).toBeUndefined();
    expect(server.name).toBe('GET /v1/games/:gameId/leaderboards/:boardId');
    expect(server.attributes['http.response.status_code']).toBe(404);
    // A 4xx is the client's mistake: an event, not a failed span.
    expect(server.statusCode).toBe(0);
    expect(server.events.some((event) => event.name === 'exception' && typeof event.attributes['exception.message'] === 'string')).toBe(true);
  });

  it('exports nothing of a request whose caller did not sample it, SQL and derivation included', async () => {
    const client = clientContext();
    const unsampled = client.traceparent.replace(/-01$/, '-00');
    const player = await signIn(base, 'unsampled-bob', unsampled);
    const response = await fetch(`${base}/v1/games/demo/runs/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: unsampled, ...bearer(player.accessToken) },
      body: JSON.stringify({ runId: `run-${randomBytes(6).toString('hex')}`, payload: { score: 900, durationMs: 60_000 } }),
    });
    expect(response.status).toBe(200);
    // A later sampled request's spans arriving shows the exports went on meanwhile.
    const marker = clientContext();
    await fetch(`${base}/v1/games/no-such-game/leaderboards/high-score`, { headers: { traceparent: marker.traceparent } });
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === marker.traceId));
    expect(receiver.spans.filter((span) => span.traceId === client.traceId)).toEqual([]);
  });

  it('keeps overlapping requests apart, sampled and unsampled mixed, and again once none was in flight', async () => {
    const players = await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(base, `overlap-${i}`)));
    const submit = (player: Session, traceparent: string) =>
      fetch(`${base}/v1/games/demo/runs/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', traceparent, ...bearer(player.accessToken) },
        body: JSON.stringify({ runId: `run-${randomBytes(6).toString('hex')}`, payload: { score: 700, durationMs: 60_000 } }),
      });
    const contexts = players.map((_, i) => ({ ...clientContext(), sampled: i % 2 === 0 }));
    const responses = await Promise.all(players.map((player, i) => submit(player, contexts[i]!.sampled ? contexts[i]!.traceparent : contexts[i]!.traceparent.replace(/-01$/, '-00'))));
    expect(responses.map((response) => response.status)).toEqual(players.map(() => 200));
    // Then one more sampled request, after the others ended (the context was let go meanwhile).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const last = { ...clientContext(), sampled: true };
    expect((await submit(players[0]!, last.traceparent)).status).toBe(200);
    const sampled = [...contexts.filter((c) => c.sampled), last];
    const sqlOf = (traceId: string, spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId && span.attributes['db.system'] !== undefined);
    await receiver.waitFor((spans) => sampled.every((c) => sqlOf(c.traceId, spans).length > 0 && spans.some((span) => span.traceId === c.traceId && span.kind === spanKind.server)));
    for (const c of sampled) {
      const trace = receiver.spans.filter((span) => span.traceId === c.traceId);
      const server = trace.find((span) => span.kind === spanKind.server)!;
      expect(server.parentSpanId).toBe(c.spanId);
      // Every span of the trace hangs under its server span: none strayed in from another request.
      const ids = new Set(trace.map((span) => span.spanId));
      for (const span of trace.filter((span) => span !== server)) expect(ids.has(span.parentSpanId!)).toBe(true);
    }
    for (const c of contexts.filter((c) => !c.sampled)) expect(receiver.spans.filter((span) => span.traceId === c.traceId)).toEqual([]);
  });

  it('creates no spans for work outside a request', async () => {
    const before = receiver.spans.length;
    await app.database.ping();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.spans.slice(before).filter((span) => span.parentSpanId === undefined && span.kind !== spanKind.server)).toEqual([]);
  });
});

describe('game service tracing without a reachable receiver', () => {
  let database: TestDatabase;
  let app: App | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    stopExporting();
  });
  afterAll(async () => {
    await database.dispose();
  });

  /** Serves requests while every export fails; answers the slowest request's time and how long closing took. */
  async function serveWhileExportsFail(endpoint: string): Promise<{ slowestMs: number; closeMs: number }> {
    exportTo(endpoint, { OTEL_EXPORTER_OTLP_TIMEOUT: '10000' });
    app = await buildTestApp(database, { LOG_LEVEL: 'silent' });
    const base = await listen(app);
    let slowestMs = 0;
    // More spans than one batch, several export attempts, every one failing.
    for (let round = 0; round < 20; round++) {
      const startedAt = performance.now();
      await signIn(base, `offline-${round}`);
      const board = await fetch(`${base}/v1/games/demo/leaderboards/high-score`);
      expect(board.status).toBeLessThan(500);
      slowestMs = Math.max(slowestMs, performance.now() - startedAt);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const closingAt = performance.now();
    await app.close();
    app = undefined;
    return { slowestMs, closeMs: performance.now() - closingAt };
  }

  it('answers every request, promptly, when nothing listens at the endpoint', async () => {
    const { slowestMs, closeMs } = await serveWhileExportsFail(`http://127.0.0.1:${await freePort()}`);
    expect(slowestMs).toBeLessThan(1_000);
    expect(closeMs).toBeLessThan(4_000);
  });

  it('answers every request, promptly, when the receiver takes connections and never answers', async () => {
    const stuck = new OtlpJsonReceiver();
    stuck.hang();
    try {
      const { slowestMs, closeMs } = await serveWhileExportsFail(await stuck.start());
      expect(slowestMs).toBeLessThan(1_000);
      // The last export waits at most the SDK's shutdown bound, not the exporter's 10 s timeout.
      expect(closeMs).toBeLessThan(4_000);
    } finally {
      await stuck.close();
    }
  });
});

describe('game service tracing of its calls to Google Play Games', () => {
  const receiver = new OtlpJsonReceiver();
  let database: TestDatabase;
  let google: FakeGoogle;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    google = await FakeGoogle.start();
    google.addPlayer({ code: 'code-traced', playerId: 'g-traced-1', displayName: 'Traced', applicationId: '123456789012' });
    exportTo(await receiver.start());
    app = await buildTestApp(database, { ...google.env, LOG_LEVEL: 'silent' }, { secrets: { GALAXY_GOOGLE_CLIENT_SECRET: 'galaxy-secret' } });
    await storeManifest(app, manifestWith(galaxyGame));
  });
  afterAll(async () => {
    await app.close();
    stopExporting();
    await google.stop();
    await receiver.close();
    await database.dispose();
  });

  it('makes each call a CLIENT span under the sign-in request\'s server span', async () => {
    const client = clientContext();
    const base = await listen(app);
    const response = await fetch(`${base}/v1/games/galaxy/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: client.traceparent },
      body: JSON.stringify({ authorizationCode: 'code-traced' }),
    });
    expect(response.status).toBe(200);
    const calls = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === client.traceId && span.kind === spanKind.client && span.attributes['url.full'] !== undefined);
    await receiver.waitFor((spans) => calls(spans).length >= 2 && spans.some((span) => span.traceId === client.traceId && span.kind === spanKind.server));
    const server = receiver.spans.find((span) => span.traceId === client.traceId && span.kind === spanKind.server)!;
    expect(server.name).toBe('POST /v1/games/:gameId/auth/exchange');
    for (const call of calls(receiver.spans)) {
      expect(call.parentSpanId).toBe(server.spanId);
      expect(call.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'http.response.status_code': 200 });
      expect(String(call.attributes['url.full'])).not.toContain('?');
    }
    expect(calls(receiver.spans).map((call) => call.name).sort()).toEqual(expect.arrayContaining(['GET', 'POST']));
  });
});

describe('game service logs with OTEL_LOGS_EXPORTER=none', () => {
  const receiver = new OtlpJsonReceiver();
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    exportTo(await receiver.start(), { OTEL_LOGS_EXPORTER: 'none' });
    app = await buildTestApp(database, { LOG_LEVEL: 'info' }, { logStream: new CapturedLogs() });
  });
  afterAll(async () => {
    await app.close();
    stopExporting();
    await receiver.close();
    await database.dispose();
  });

  it('exports the spans and no log records', async () => {
    const base = await listen(app);
    const client = clientContext();
    await signIn(base, 'no-logs-carol', client.traceparent);
    await receiver.waitFor((spans) => spans.some((span) => span.traceId === client.traceId));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.logs).toEqual([]);
  });
});
