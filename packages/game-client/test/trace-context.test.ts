import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, OtlpJsonReceiver, type TestDatabase } from '@playstack/server-kit/testing';
import type { FetchFunction } from '../src/http-transport.js';
import { drain, newPlayerCode, openClient, scorePayload } from './support/clients.js';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

const receiver = new OtlpJsonReceiver();
let database: TestDatabase;
let harness: GameServiceHarness;

beforeAll(async () => {
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start(), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' });
  database = await createTestDatabase('sqlite');
  harness = await startGameService(database);
});
afterAll(async () => {
  await harness.close();
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_BSP_SCHEDULE_DELAY']) delete process.env[name];
  await receiver.close();
  await database.dispose();
});

/** `fetch` that notes the traceparent each call carried. */
function recordingFetch(sent: Array<{ url: string; traceparent: string | null }>): FetchFunction {
  return (input, init) => {
    sent.push({ url: input, traceparent: new Headers(init.headers).get('traceparent') });
    return globalThis.fetch(input, init);
  };
}

it('sends a new sampled traceparent on each call by default, and the service\'s span of the call joins that trace', async () => {
  const sent: Array<{ url: string; traceparent: string | null }> = [];
  const client = openClient(harness, { fetch: recordingFetch(sent) });
  await client.signIn(newPlayerCode('traced'));
  await client.submitRun('score', scorePayload(777));
  await drain(client);
  await client.leaderboard('high-score');
  expect(sent.length).toBeGreaterThanOrEqual(3);
  const contexts = sent.map(({ traceparent }) => /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent ?? ''));
  expect(contexts.every((match) => match !== null)).toBe(true);
  expect(new Set(contexts.map((match) => match![1])).size).toBe(sent.length);
  const submit = contexts[sent.findIndex(({ url }) => url.includes('/runs/'))]!;
  await receiver.waitFor((spans) => spans.some((span) => span.traceId === submit[1] && span.name === 'POST /v1/games/:gameId/runs/:adapterId'));
  const server = receiver.spans.find((span) => span.traceId === submit[1] && span.kind === 2)!;
  expect(server.parentSpanId).toBe(submit[2]);
  // The service's own work on the run (SQL) is in the device's trace too.
  await receiver.waitFor((spans) => spans.some((span) => span.traceId === submit[1] && span.attributes['db.system'] === 'sqlite'));
  await client.stop();
});

it('sends the game\'s own context when it passes one, and none when tracing is off', async () => {
  const traceId = randomBytes(16).toString('hex');
  const own: Array<{ url: string; traceparent: string | null }> = [];
  const withOwn = openClient(harness, { fetch: recordingFetch(own), traceContext: () => `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
  await withOwn.signIn(newPlayerCode('own-context'));
  await withOwn.leaderboard('high-score');
  expect(own.length).toBeGreaterThan(0);
  expect(own.every(({ traceparent }) => traceparent?.startsWith(`00-${traceId}-`))).toBe(true);
  await receiver.waitFor((spans) => spans.filter((span) => span.traceId === traceId && span.kind === 2).length >= own.length);

  const off: Array<{ url: string; traceparent: string | null }> = [];
  const withoutTracing = openClient(harness, { fetch: recordingFetch(off), traceContext: false });
  await withoutTracing.signIn(newPlayerCode('untraced'));
  await withoutTracing.leaderboard('high-score');
  expect(off.length).toBeGreaterThan(0);
  expect(off.every(({ traceparent }) => traceparent === null)).toBe(true);

  // A malformed context of the game's is not sent.
  const malformed: Array<{ url: string; traceparent: string | null }> = [];
  const withMalformed = openClient(harness, { fetch: recordingFetch(malformed), traceContext: () => 'not-a-traceparent' });
  await withMalformed.signIn(newPlayerCode('malformed'));
  await withMalformed.leaderboard('high-score');
  expect(malformed.length).toBeGreaterThan(0);
  expect(malformed.every(({ traceparent }) => traceparent === null)).toBe(true);

  // traceSampleRate 0: the ids still travel, marked not sampled.
  const unsampled: Array<{ url: string; traceparent: string | null }> = [];
  const withUnsampled = openClient(harness, { fetch: recordingFetch(unsampled), traceSampleRate: 0 });
  await withUnsampled.signIn(newPlayerCode('unsampled'));
  await withUnsampled.leaderboard('high-score');
  expect(unsampled.length).toBeGreaterThan(0);
  expect(unsampled.every(({ traceparent }) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/.test(traceparent ?? ''))).toBe(true);
});
