/**
 * A strict RFC 4180 reader for tests, written independently of the writer so a round trip
 * checks the format rather than the writer against itself. Records end with CRLF.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (char === '"') {
        quoted = false;
        i += 1;
      } else {
        field += char;
        i += 1;
      }
    } else if (char === '"' && field === '') {
      quoted = true;
      i += 1;
    } else if (char === ',') {
      record.push(field);
      field = '';
      i += 1;
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else if (char === '"' || char === '\r' || char === '\n') {
      throw new Error(`unquoted ${JSON.stringify(char)} at offset ${i}`);
    } else {
      field += char;
      i += 1;
    }
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || record.length > 0) throw new Error('last record is not CRLF-terminated');
  return records;
}
