import { describe, expect, it } from 'vitest';
import { csvChunks, csvField } from '../src/usage/csv-chunks.js';
import { jsonArrayChunks } from '../src/usage/json-array-chunks.js';
import { parseCsv } from './support/parse-csv.js';

async function* batchesOf<T>(...batches: T[][]): AsyncGenerator<T[]> {
  for (const batch of batches) yield batch;
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

describe('CSV output', () => {
  it('quotes only fields with commas, quotes or line breaks, doubling quotes (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(null)).toBe('');
    expect(csvField(12.5)).toBe('12.5');
  });

  it('writes a header row and CRLF-terminated records that parse back to the values', async () => {
    type Row = { tenant: string; count: number };
    const rows: Row[] = [{ tenant: 'acme, inc.', count: 3 }, { tenant: 'the "best"\r\nco', count: 0 }, { tenant: '', count: 7 }];
    const text = await collect(
      csvChunks<Row>([{ header: 'tenant', value: (r) => r.tenant }, { header: 'count', value: (r) => r.count }], batchesOf(rows.slice(0, 2), [], rows.slice(2))),
    );
    expect(text.startsWith('tenant,count\r\n')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(parseCsv(text)).toEqual([['tenant', 'count'], ...rows.map((r) => [r.tenant, String(r.count)])]);
  });
});

describe('JSON array output', () => {
  it('streams batches into one valid document', async () => {
    expect(JSON.parse(await collect(jsonArrayChunks('rows', batchesOf([{ a: 1 }], [], [{ a: 2 }, { a: 3 }]))))).toEqual({ rows: [{ a: 1 }, { a: 2 }, { a: 3 }] });
    expect(JSON.parse(await collect(jsonArrayChunks('rows', batchesOf())))).toEqual({ rows: [] });
  });
});
