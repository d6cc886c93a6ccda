/** A value a CSV cell can hold; null and undefined are empty cells. */
export type CsvValue = string | number | boolean | null | undefined;

const needsQuoting = /[",\r\n]/;

/** One field, RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return needsQuoting.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * Streams rows as CSV text: the header record first, then each row's values in column order.
 * Batches of rows become one chunk, so a large export costs one write per batch, not per cell.
 */
export async function* csvChunks<Row>(
  columns: ReadonlyArray<{ header: string; value: (row: Row) => CsvValue }>,
  batches: AsyncIterable<readonly Row[]>,
): AsyncGenerator<string> {
  yield csvRecord(columns.map((column) => column.header));
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    let chunk = '';
    for (const row of batch) chunk += csvRecord(columns.map((column) => column.value(row)));
    yield chunk;
  }
}
