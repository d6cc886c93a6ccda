import { describe, expect, it } from 'vitest';
import { otlpLogRow, type LogResource, type OtlpLogRecord } from '../src/otlp/otlp-log-rows.js';
import { decodeOtlp } from '../src/otlp/otlp-encoding.js';
import { otlpType } from '../src/otlp/otlp-protos.js';

const requestType = otlpType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');

/** A log record as protobufjs decodes it from OTLP/JSON (the mapping sees the same shape for every encoding). */
function decodedRecord(record: Record<string, unknown>): OtlpLogRecord {
  const body = Buffer.from(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] }));
  const request = decodeOtlp<{ resourceLogs: Array<{ scopeLogs: Array<{ logRecords: OtlpLogRecord[] }> }> }>(requestType, body, 'json');
  return request.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!;
}

const nowMs = Date.UTC(2026, 10, 27, 12, 0, 0);
const window = { oldestMs: nowMs - 7 * 86_400_000, newestMs: nowMs + 3_600_000 };
const owner: LogResource = { resource: { service: 'api', environment: 'production', version: '2.1.0', instance: 'api-1' }, resourceAttributes: '{"host.name":"h1"}', tenant: 'resource-tenant' };
const at = (ms: number, extraNanos = 0) => String(BigInt(ms) * 1_000_000n + BigInt(extraNanos));
const attribute = (key: string, value: Record<string, unknown>) => ({ key, value });

function row(record: Record<string, unknown>, scope?: { name?: string; version?: string }) {
  const mapped = otlpLogRow(decodedRecord(record), scope, owner, window, nowMs);
  if (!mapped.ok) throw new Error(`refused: ${mapped.message}`);
  return mapped;
}

function refusal(record: Record<string, unknown>): string {
  const mapped = otlpLogRow(decodedRecord(record), undefined, owner, window, nowMs);
  if (mapped.ok) throw new Error('accepted');
  return mapped.message;
}

describe('OTLP log records to rows', () => {
  it('maps every field, the resource fields from the resource', () => {
    const { row: mapped, truncated } = row(
      {
        timeUnixNano: at(nowMs - 1_000, 123_456),
        observedTimeUnixNano: at(nowMs - 900),
        severityNumber: 13,
        severityText: 'WARN',
        body: { stringValue: 'queue backed up' },
        eventName: 'queue.full',
        traceId: '5B8EFFF798038103D269B633813FC60C',
        spanId: 'eee19b7ec3c1b174',
        flags: 0x101,
        attributes: [attribute('tenant.id', { stringValue: 'acme' }), attribute('queue', { stringValue: 'matchmaking' }), attribute('depth', { intValue: '42' })],
      },
      { name: 'queue-logger', version: '1.0' },
    );
    expect(truncated).toBe(0);
    expect(mapped).toEqual({
      time_ms: nowMs - 1_000,
      time_ns: 123_456,
      observed_ms: nowMs - 900,
      severity_number: 13,
      severity_text: 'WARN',
      body: 'queue backed up',
      body_json: 0,
      event_name: 'queue.full',
      service: 'api',
      environment: 'production',
      service_version: '2.1.0',
      instance: 'api-1',
      scope_name: 'queue-logger',
      scope_version: '1.0',
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      flags: 1,
      tenant_id: 'acme',
      attributes: '{"queue":"matchmaking","depth":42}',
      resource_attributes: '{"host.name":"h1"}',
    });
  });

  it('takes the observed time without a time, the receipt time without either, and the resource tenant without its own', () => {
    expect(row({ observedTimeUnixNano: at(nowMs - 5, 7) }).row).toMatchObject({ time_ms: nowMs - 5, time_ns: 7, observed_ms: nowMs - 5, tenant_id: 'resource-tenant' });
    expect(row({}).row).toMatchObject({ time_ms: nowMs, time_ns: 0, observed_ms: nowMs, severity_number: 0, body: null, trace_id: null, span_id: null, attributes: null });
  });

  it('infers the severity number from a level name when none is given', () => {
    expect(row({ timeUnixNano: at(nowMs), severityText: 'Warning' }).row.severity_number).toBe(13);
  });

  it('stores a structured body as JSON text, and cuts JSON text over 65,536 characters', () => {
    expect(row({ timeUnixNano: at(nowMs), body: { kvlistValue: { values: [attribute('player', { intValue: '7' })] } } }).row).toMatchObject({ body: '{"player":7}', body_json: 1 });
    const huge = row({ timeUnixNano: at(nowMs), body: { arrayValue: { values: [{ stringValue: 'x'.repeat(70_000) }] } } });
    expect(huge.truncated).toBe(1);
    expect(huge.row).toMatchObject({ body_json: 0 });
    expect(huge.row.body).toHaveLength(65_536);
  });

  it('cuts texts over their bounds at code point boundaries and counts each', () => {
    const mapped = row(
      {
        timeUnixNano: at(nowMs),
        severityText: 'S'.repeat(40),
        body: { stringValue: '😀'.repeat(16_385) },
        eventName: 'e'.repeat(300),
        attributes: [attribute('tenant.id', { stringValue: 't'.repeat(200) })],
      },
      { name: 'n'.repeat(300), version: 'v'.repeat(70) },
    );
    expect(mapped.truncated).toBe(6);
    expect(mapped.row.severity_text).toHaveLength(32);
    expect(Array.from(mapped.row.body!)).toHaveLength(16_384);
    expect(mapped.row.body!.endsWith('😀')).toBe(true);
    expect(mapped.row.event_name).toHaveLength(256);
    expect(mapped.row.scope_name).toHaveLength(256);
    expect(mapped.row.scope_version).toHaveLength(64);
    expect(mapped.row.tenant_id).toHaveLength(128);
    // At the bound exactly: nothing is cut.
    expect(row({ timeUnixNano: at(nowMs), body: { stringValue: '😀'.repeat(16_384) } }).truncated).toBe(0);
  });

  it('refuses ids of the wrong length, severities out of range and times outside the window, and reads all-zero ids as none', () => {
    expect(refusal({ timeUnixNano: at(nowMs), traceId: 'abcd' })).toBe('traceId must be empty or 16 bytes (32 hex characters in JSON); it has 2');
    expect(refusal({ timeUnixNano: at(nowMs), spanId: 'abcd' })).toBe('spanId must be empty or 8 bytes (16 hex characters in JSON); it has 2');
    expect(row({ timeUnixNano: at(nowMs), traceId: '0'.repeat(32), spanId: '0'.repeat(16) }).row).toMatchObject({ trace_id: null, span_id: null });
    expect(refusal({ timeUnixNano: at(nowMs), severityNumber: 25 })).toBe('log.severityNumber must be <= 24');
    expect(refusal({ timeUnixNano: at(nowMs), severityNumber: -1 })).toBe('log.severityNumber must be >= 0');
    expect(refusal({ timeUnixNano: at(window.oldestMs - 1) })).toBe('log.time is older than the retention period');
    expect(refusal({ timeUnixNano: at(window.newestMs + 1) })).toBe('log.time is more than an hour in the future');
  });
});
