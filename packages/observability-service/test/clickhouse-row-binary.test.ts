import { describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { clickHouseAvailable } from '@playstack/server-kit/testing';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { clickHouseStoreForSuite } from './support/clickhouse-store.js';
import { generateDataSet } from './support/generated-occurrences.js';

// The ClickHouse writer sends each batch as one RowBinary body: every value comes back as sent,
// whatever its characters, length or absence.

const now = Date.parse('2026-11-21T12:00:00.000Z');

if (clickHouseAvailable()) describe('ClickHouse inserts in RowBinary', () => {
  const suite = clickHouseStoreForSuite(new ManualClock(now));

  it('stores every column as sent: tabs, newlines, backslashes, quotes, non-ASCII text, long values and NULLs', async () => {
    const [template] = generateDataSet(now, 1, 7).rows;
    const long = 'ü€😀 '.repeat(400);
    const odd: NewOccurrence = {
      ...template!,
      trace_id: 'a'.repeat(32),
      started_at: now - 1234.125,
      duration_ms: 6.762,
      operation: 'GET /a\tb\nc\\d\'e"f',
      client_id: null,
      service_version: 'v\r1',
      tenant_id: 'tenant-ü',
      http_status_code: 503,
      db_statement: long,
      attributes: JSON.stringify({ note: 'line1\nline2\t\\', emoji: '😀' }),
      error_stack: null,
    };
    const bare: NewOccurrence = { ...odd, span_id: 'b'.repeat(16), started_at: now - 1000, operation: '', http_status_code: null, tenant_id: null, service_version: null, attributes: null };
    const { store } = suite();
    await store.write([odd, bare]);
    const spans = await store.traceSpans('a'.repeat(32), 10);
    const columns = Object.keys(odd).filter((name) => name !== 'normalized_statement') as Array<keyof NewOccurrence>;
    const sent = (row: NewOccurrence) => Object.fromEntries(columns.map((name) => [name, row[name]]));
    expect(spans.map((span) => Object.fromEntries(columns.map((name) => [name, span[name as keyof typeof span]])))).toEqual([sent(odd), sent(bare)]);
    expect(spans.map((span) => Number(span.received_at))).toEqual([now, now]);
  });
});
