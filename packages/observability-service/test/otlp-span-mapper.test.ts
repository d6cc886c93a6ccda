import { describe, expect, it } from 'vitest';
import { mapOtlpResource, mapOtlpSpan, type OtlpSpan } from '../src/otlp/otlp-span-mapper.js';
import { decodeOtlp } from '../src/otlp/otlp-encoding.js';
import { otlpType } from '../src/otlp/otlp-protos.js';

const requestType = otlpType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

/** A span as protobufjs decodes it from OTLP/JSON (the mapping sees the same shape for every encoding). */
function decodedSpan(span: Record<string, unknown>): OtlpSpan {
  const body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }));
  const request = decodeOtlp<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }>(requestType, body, 'json');
  return request.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
}

const attribute = (key: string, value: Record<string, unknown>) => ({ key, value });
const ids = { traceId: '5B8EFFF798038103D269B633813FC60C', spanId: 'eee19b7ec3c1b174' };

describe('OTLP span mapping', () => {
  it('understands the older semantic convention names', () => {
    const mapped = mapOtlpSpan(
      decodedSpan({
        ...ids,
        name: 'GET /legacy',
        kind: 3,
        startTimeUnixNano: '1795240800000000000',
        endTimeUnixNano: '1795240800012500000',
        attributes: [
          attribute('http.method', { stringValue: 'GET' }),
          attribute('http.status_code', { intValue: '503' }),
          attribute('db.system', { stringValue: 'mysql' }),
          attribute('db.statement', { stringValue: 'SELECT 1' }),
          attribute('db.operation', { stringValue: 'SELECT' }),
          attribute('net.peer.name', { stringValue: 'db.local' }),
          attribute('net.peer.port', { intValue: 3306 }),
          attribute('error.type', { stringValue: 'Timeout' }),
          attribute('tags', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '2' }] } }),
          attribute('ratio', { doubleValue: 0.5 }),
        ],
        status: { code: 2, message: 'upstream timed out' },
      }),
    );
    expect(mapped).toEqual({
      ok: true,
      extras: { events: null, links: null },
      occurrence: {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        operation: 'GET /legacy',
        kind: 'client',
        startedAt: '2026-11-21T06:00:00.000Z',
        durationMs: 12.5,
        status: 'error',
        http: { method: 'GET', statusCode: 503 },
        db: { system: 'mysql', statement: 'SELECT 1', operation: 'SELECT' },
        peer: { address: 'db.local:3306' },
        error: { type: 'Timeout', message: 'upstream timed out' },
        attributes: { tags: '["a",2]', ratio: 0.5 },
      },
    });
  });

  it('understands the current semantic convention names, which win over older ones on the same span', () => {
    const mapped = mapOtlpSpan(
      decodedSpan({
        ...ids,
        name: 'SELECT players',
        kind: 3,
        startTimeUnixNano: '1795240800000000000',
        endTimeUnixNano: '1795240800002000000',
        attributes: [
          attribute('http.request.method', { stringValue: 'POST' }),
          attribute('http.method', { stringValue: 'GET' }),
          attribute('http.route', { stringValue: '/players/:id' }),
          attribute('http.response.status_code', { intValue: '201' }),
          attribute('http.status_code', { intValue: '500' }),
          attribute('db.system.name', { stringValue: 'postgresql' }),
          attribute('db.system', { stringValue: 'mysql' }),
          attribute('db.query.text', { stringValue: 'SELECT * FROM players WHERE id = $1' }),
          attribute('db.statement', { stringValue: 'SELECT 1' }),
          attribute('db.operation.name', { stringValue: 'SELECT' }),
          attribute('peer.service', { stringValue: 'players-db' }),
          attribute('server.address', { stringValue: 'db.internal' }),
          attribute('server.port', { intValue: '5432' }),
          attribute('net.peer.name', { stringValue: 'old.local' }),
          attribute('tenant.id', { stringValue: 'acme' }),
          attribute('url.full', { stringValue: 'https://elsewhere.example/x' }),
        ],
      }),
    );
    expect(mapped).toMatchObject({
      ok: true,
      occurrence: {
        kind: 'client',
        status: 'ok',
        tenantId: 'acme',
        http: { method: 'POST', route: '/players/:id', statusCode: 201 },
        db: { system: 'postgresql', statement: 'SELECT * FROM players WHERE id = $1', operation: 'SELECT' },
        peer: { service: 'players-db', address: 'db.internal:5432' },
      },
    });
    // Mapped names, current and older, are not repeated as free attributes; the rest stay searchable.
    expect(mapped.ok && mapped.occurrence.attributes).toEqual({ 'url.full': 'https://elsewhere.example/x' });
  });

  it('takes the peer of a client span from url.full when no server is named, and no peer for a server span', () => {
    const client = mapOtlpSpan(decodedSpan({ ...ids, kind: 3, attributes: [attribute('url.full', { stringValue: 'https://api.example.com:8443/v1/x?y=1' })] }));
    expect(client.ok && client.occurrence.peer).toEqual({ address: 'api.example.com:8443' });
    const server = mapOtlpSpan(decodedSpan({ ...ids, kind: 2, attributes: [attribute('server.address', { stringValue: 'me.local' })] }));
    expect(server.ok && server.occurrence.peer).toBeUndefined();
  });

  it('maps span kinds and treats unset status as ok', () => {
    const kinds = [0, 1, 2, 3, 4, 5].map((kind) => {
      const mapped = mapOtlpSpan(decodedSpan({ ...ids, kind }));
      return mapped.ok ? mapped.occurrence.kind : undefined;
    });
    expect(kinds).toEqual(['internal', 'internal', 'server', 'client', 'producer', 'consumer']);
    const unset = mapOtlpSpan(decodedSpan({ ...ids, status: {} }));
    expect(unset.ok && unset.occurrence.status).toBe('ok');
  });

  it('refuses a span whose ids have the wrong length, naming the id', () => {
    expect(mapOtlpSpan(decodedSpan({ ...ids, traceId: 'abcd' }))).toEqual({ ok: false, message: expect.stringMatching(/^traceId must be 16 bytes/) });
    expect(mapOtlpSpan(decodedSpan({ ...ids, spanId: 'not-hex!' }))).toEqual({ ok: false, message: expect.stringMatching(/^spanId must be 8 bytes/) });
    expect(mapOtlpSpan(decodedSpan({ ...ids, parentSpanId: 'aa' }))).toEqual({ ok: false, message: expect.stringMatching(/^parentSpanId/) });
    expect(mapOtlpSpan(decodedSpan({ ...ids, links: [{ traceId: ids.traceId, spanId: '00' }] }))).toEqual({ ok: false, message: expect.stringMatching(/^links\[0\]/) });
  });

  it('keeps events with their times and links with their attributes', () => {
    const mapped = mapOtlpSpan(
      decodedSpan({
        ...ids,
        startTimeUnixNano: '1795240800000000000',
        events: [{ name: 'cache miss', timeUnixNano: '1795240800001500000', attributes: [attribute('key', { stringValue: 'p:1' })] }],
        links: [{ traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: 'bbbbbbbbbbbbbbbb', traceState: 'k=v', attributes: [attribute('reason', { stringValue: 'batch' })] }],
      }),
    );
    if (!mapped.ok) throw new Error(mapped.message);
    expect(JSON.parse(mapped.extras.events!)).toEqual([{ name: 'cache miss', timeMs: 1795240800001.5, attributes: { key: 'p:1' } }]);
    expect(JSON.parse(mapped.extras.links!)).toEqual([{ traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', spanId: 'bbbbbbbbbbbbbbbb', traceState: 'k=v', attributes: { reason: 'batch' } }]);
  });

  it('names the resource from service.name and the deployment environment, keeping its other attributes', () => {
    const resource = {
      attributes: [
        { key: 'service.name', value: { value: 'stringValue', stringValue: 'api' } },
        { key: 'deployment.environment', value: { value: 'stringValue', stringValue: 'prod' } },
        { key: 'host.name', value: { value: 'stringValue', stringValue: 'web-3' } },
      ],
    };
    expect(mapOtlpResource(resource)).toEqual({ resource: { service: 'api', environment: 'prod' }, otherAttributes: '{"host.name":"web-3"}' });
    expect(mapOtlpResource(undefined)).toEqual({ resource: { service: 'unknown_service', environment: 'default' }, otherAttributes: null });
  });
});
