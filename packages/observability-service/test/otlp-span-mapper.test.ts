import { describe, expect, it } from 'vitest';
import { mapOtlpResource, mapOtlpSpan } from '../src/otlp/otlp-span-mapper.js';

const attribute = (key: string, value: Record<string, unknown>) => ({ key, value });

describe('OTLP span mapping', () => {
  it('understands the older semantic convention names', () => {
    const occurrence = mapOtlpSpan({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
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
        attribute('tags', { arrayValue: { values: [{ stringValue: 'a' }] } }),
        attribute('ratio', { doubleValue: 0.5 }),
      ],
      status: { code: 'STATUS_CODE_ERROR', message: 'upstream timed out' },
    });
    expect(occurrence).toEqual({
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
      attributes: { tags: '{"values":[{"stringValue":"a"}]}', ratio: 0.5 },
    });
  });

  it('maps span kinds and treats unset status as ok', () => {
    const kinds = [0, 1, 2, 3, 4, 5, 'SPAN_KIND_CONSUMER'].map((kind) => mapOtlpSpan({ kind, startTimeUnixNano: '0', endTimeUnixNano: '0' }).kind);
    expect(kinds).toEqual(['internal', 'internal', 'server', 'client', 'producer', 'consumer', 'consumer']);
    expect(mapOtlpSpan({ status: {} }).status).toBe('ok');
  });

  it('names the resource from service.name and the deployment environment, with defaults', () => {
    expect(mapOtlpResource({ attributes: [attribute('service.name', { stringValue: 'api' }), attribute('deployment.environment', { stringValue: 'prod' })] })).toEqual({
      service: 'api',
      environment: 'prod',
    });
    expect(mapOtlpResource(undefined)).toEqual({ service: 'unknown_service', environment: 'default' });
  });
});
