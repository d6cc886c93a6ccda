import { describe, expect, it } from 'vitest';
import { packLogRows, packedCount, type NewLogRecord } from '../src/logs/index.js';
import { logColumn, logColumns, logStride } from '../src/logs/packed-log-rows.js';

/** A record whose every column holds a value of its own, so a swapped pair shows. */
function distinctRecord(n: number, receivedAt?: number): NewLogRecord {
  return {
    time_ms: 1_000 + n, time_ns: 2 + n, observed_ms: 3_000 + n, severity_number: 9, severity_text: `sev-${n}`, body: `body-${n}`, body_json: 0,
    event_name: `event-${n}`, service: `service-${n}`, environment: `env-${n}`, service_version: `version-${n}`, instance: `instance-${n}`,
    scope_name: `scope-${n}`, scope_version: `scope-version-${n}`, trace_id: `trace-${n}`, span_id: `span-${n}`, flags: 1, tenant_id: `tenant-${n}`,
    attributes: `{"a":${n}}`, resource_attributes: `{"r":${n}}`, ...(receivedAt === undefined ? {} : { received_at: receivedAt }),
  };
}

describe('packed log rows', () => {
  it('holds each record as its values in the INSERT column order, the id to be assigned', () => {
    const records = [distinctRecord(1), distinctRecord(2, 77)];
    const packed = packLogRows(records);
    expect(packed.count).toBe(2);
    expect(packed.values).toHaveLength(2 * logStride);
    records.forEach((record, index) => {
      const expected = logColumns.map((column) => (column === 'id' ? 0 : column === 'received_at' ? (record.received_at ?? null) : record[column]));
      expect(packed.values.slice(index * logStride, (index + 1) * logStride)).toEqual(expected);
    });
    expect(packed.values[logStride + logColumn.received_at]).toBe(77);
    expect(packedCount([packed, packLogRows([]), packLogRows([distinctRecord(3)])])).toBe(3);
  });

  it('counts the records per minute and key, tenants only where a record has one', () => {
    const minute = 60_000 * 29_000_000;
    const at = (offsetMs: number, severity: number, tenant: string | null): NewLogRecord => ({ ...distinctRecord(0), time_ms: minute + offsetMs, service: 'api', environment: 'prod', severity_number: severity, tenant_id: tenant });
    const { minuteCounts } = packLogRows([at(0, 9, 't1'), at(59_999, 9, null), at(60_000, 9, 't1'), at(1, 17, 't2')]);
    expect(minuteCounts.severities).toEqual([
      { minuteMs: minute, key: ['api', 'prod', 9], count: 2 },
      { minuteMs: minute + 60_000, key: ['api', 'prod', 9], count: 1 },
      { minuteMs: minute, key: ['api', 'prod', 17], count: 1 },
    ]);
    expect(minuteCounts.tenants).toEqual([
      { minuteMs: minute, key: ['t1', 'api', 'prod'], count: 1 },
      { minuteMs: minute + 60_000, key: ['t1', 'api', 'prod'], count: 1 },
      { minuteMs: minute, key: ['t2', 'api', 'prod'], count: 1 },
    ]);
  });
});
