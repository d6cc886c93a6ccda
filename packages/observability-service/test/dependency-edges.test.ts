import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { envelope, minimalOccurrence, newSpanId, newTraceId } from './support/envelopes.js';
import { buildTestApp } from './support/test-app.js';

const legacyKey = 'edges-test-key-0123456789';
const startedAt = '2026-11-21T10:00:00.000Z';

describeEachDatabase('dependency edges', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { SERVICE_API_KEY: legacyKey }, { clock: new ManualClock('2026-11-21T10:01:00.000Z') });
  });
  afterAll(async () => {
    await app.close();
  });

  const send = async (service: string, occurrences: unknown[]) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/ingest',
      headers: { authorization: `Bearer ${legacyKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(envelope(occurrences, { service, environment: 'production' })),
    });
    expect(response.json().rejected).toEqual({ occurrences: 0, logs: 0 });
  };
  const edgesFrom = (source: string) =>
    app.database.db
      .selectFrom('dependency_rollups')
      .select(['target', 'target_kind', 'count', 'error_count', 'duration_sum_ms'])
      .where('source_service', '=', source)
      .orderBy('target')
      .execute();

  it('counts a call between services once, whichever of parent and child arrives first', async () => {
    for (const [caller, childFirst] of [['web-a', true], ['web-b', false]] as const) {
      const traceId = newTraceId();
      const parent = minimalOccurrence(startedAt, { traceId, spanId: newSpanId(), kind: 'internal', operation: 'render' });
      const child = minimalOccurrence(startedAt, { traceId, spanId: newSpanId(), parentSpanId: parent.spanId, kind: 'server', durationMs: 7, status: 'error' });
      if (childFirst) {
        await send('api', [child]);
        await send(caller, [parent]);
      } else {
        await send(caller, [parent]);
        await send('api', [child]);
      }
      expect(await edgesFrom(caller)).toEqual([{ target: 'api', target_kind: 'service', count: 1, error_count: 1, duration_sum_ms: 7 }]);
    }
  });

  it('takes a client span’s peer, address or database as the callee, without counting its child again', async () => {
    const traceId = newTraceId();
    const call = minimalOccurrence(startedAt, { traceId, spanId: newSpanId(), kind: 'client', peer: { service: 'ranks' }, durationMs: 3 });
    await send('games', [
      call,
      minimalOccurrence(startedAt, { kind: 'client', peer: { address: 'cdn.example.com:443' }, durationMs: 4 }),
      minimalOccurrence(startedAt, { kind: 'client', db: { system: 'postgresql', statement: 'SELECT 1' }, durationMs: 5 }),
      minimalOccurrence(startedAt, { kind: 'internal', peer: { service: 'not-a-call' } }),
    ]);
    await send('ranks', [minimalOccurrence(startedAt, { traceId, spanId: newSpanId(), parentSpanId: call.spanId, kind: 'server' })]);
    expect(await edgesFrom('games')).toEqual([
      { target: 'cdn.example.com:443', target_kind: 'address', count: 1, error_count: 0, duration_sum_ms: 4 },
      { target: 'postgresql', target_kind: 'database', count: 1, error_count: 0, duration_sum_ms: 5 },
      { target: 'ranks', target_kind: 'service', count: 1, error_count: 0, duration_sum_ms: 3 },
    ]);
  });

  it('adds no edge between spans of the same service', async () => {
    const traceId = newTraceId();
    const parent = minimalOccurrence(startedAt, { traceId, spanId: newSpanId() });
    await send('solo', [parent, minimalOccurrence(startedAt, { traceId, spanId: newSpanId(), parentSpanId: parent.spanId })]);
    expect(await edgesFrom('solo')).toEqual([]);
  });
});
