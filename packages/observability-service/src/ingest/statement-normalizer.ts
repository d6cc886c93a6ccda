import { createHash } from 'node:crypto';

const repeatedPlaceholders = /\(\s*\?(?:\s*,\s*\?)+\s*\)/g;
const repeatedGroups = /\(\?\)(?:\s*,\s*\(\?\))+/g;

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code > 127;
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/** Index just past a quoted run starting at `start` (quote doubled inside = escaped); the end of the text if unclosed. */
function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return text.length;
}

/**
 * The shape of a SQL statement: string, numeric, boolean and dollar-quoted literals and bind
 * placeholders become `?`, lists of them collapse to `(?)` (so `IN (1, 2, 3)` and a multi-row
 * VALUES group with `IN (4)`), comments go and whitespace collapses. Identifiers, including
 * quoted ones, stay as written. A hand-written scanner: this runs for every database occurrence.
 */
export function normalizeStatement(statement: string): string {
  let out = '';
  let pendingSpace = false;
  const emit = (piece: string) => {
    if (pendingSpace && out.length > 0) out += ' ';
    pendingSpace = false;
    out += piece;
  };
  const text = statement;
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    const code = text.charCodeAt(i);
    const next = text[i + 1];
    if (isSpace(code)) {
      pendingSpace = true;
      i += 1;
    } else if (char === "'") {
      emit('?');
      i = skipQuoted(text, i, "'");
    } else if (char === '"' || char === '`') {
      const end = skipQuoted(text, i, char);
      emit(text.slice(i, end));
      i = end;
    } else if (char === '[') {
      const close = text.indexOf(']', i);
      const end = close === -1 ? text.length : close + 1;
      emit(text.slice(i, end));
      i = end;
    } else if ((char === '-' && next === '-') || char === '#') {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? text.length : newline;
      pendingSpace = true;
    } else if (char === '/' && next === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 2;
      pendingSpace = true;
    } else if (char === '$') {
      let j = i + 1;
      if (isDigit(text.charCodeAt(j))) {
        while (isDigit(text.charCodeAt(j))) j += 1;
        emit('?');
        i = j;
        continue;
      }
      while (j < text.length && /[A-Za-z_]/.test(text[j]!)) j += 1;
      if (text[j] === '$') {
        const tag = text.slice(i, j + 1);
        const close = text.indexOf(tag, j + 1);
        emit('?');
        i = close === -1 ? text.length : close + tag.length;
      } else {
        emit('$');
        i += 1;
      }
    } else if (char === ':' && next === ':') {
      emit('::');
      i += 2;
    } else if ((char === ':' || char === '@') && next !== undefined && /[A-Za-z_]/.test(next)) {
      let j = i + 1;
      while (j < text.length && isWordChar(text.charCodeAt(j))) j += 1;
      emit('?');
      i = j;
    } else if (char === '?') {
      emit('?');
      i += 1;
    } else if (isDigit(code) || (char === '.' && next !== undefined && isDigit(next.charCodeAt(0)))) {
      let j = i;
      if (char === '0' && (next === 'x' || next === 'X')) {
        j += 2;
        while (j < text.length && /[0-9A-Fa-f]/.test(text[j]!)) j += 1;
      } else {
        while (isDigit(text.charCodeAt(j))) j += 1;
        if (text[j] === '.') {
          j += 1;
          while (isDigit(text.charCodeAt(j))) j += 1;
        }
        if ((text[j] === 'e' || text[j] === 'E') && (isDigit(text.charCodeAt(j + 1)) || ((text[j + 1] === '+' || text[j + 1] === '-') && isDigit(text.charCodeAt(j + 2))))) {
          j += 2;
          while (isDigit(text.charCodeAt(j))) j += 1;
        }
      }
      emit('?');
      i = j;
    } else if (isWordChar(code)) {
      let j = i + 1;
      while (j < text.length && isWordChar(text.charCodeAt(j))) j += 1;
      const word = text.slice(i, j);
      const lower = word.length === 4 || word.length === 5 ? word.toLowerCase() : '';
      emit(lower === 'true' || lower === 'false' ? '?' : word);
      i = j;
    } else {
      emit(char);
      i += 1;
    }
  }
  return out.includes(',') ? out.replace(repeatedPlaceholders, '(?)').replace(repeatedGroups, '(?)') : out;
}

const hashCacheEntries = 10_000;
const hashes = new Map<string, string>();

/** The key a normalized statement is grouped under: 16 hex characters of its SHA-256. */
export function statementHash(normalized: string): string {
  let hash = hashes.get(normalized);
  if (hash === undefined) {
    hash = createHash('sha256').update(normalized, 'utf8').digest('hex').slice(0, 16);
    // Query shapes are few; a full cache means unusual traffic, and starting over is enough.
    if (hashes.size >= hashCacheEntries) hashes.clear();
    hashes.set(normalized, hash);
  }
  return hash;
}

/** The statement's verb (`SELECT`, `INSERT`, ...), or undefined for an empty statement. */
export function statementVerb(normalized: string): string | undefined {
  const match = /^[(\s]*([A-Za-z]+)/.exec(normalized);
  return match?.[1]?.toUpperCase();
}
