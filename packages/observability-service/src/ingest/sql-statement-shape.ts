/**
 * The shape of a SQL statement as a dialect reads it: literals and bind placeholders become `?`,
 * lists of them collapse, comments go, whitespace collapses. What counts as a literal, a
 * placeholder, an identifier or a comment differs between databases, so each `db.system` names
 * its rules (`sqlDialectOf`).
 */

export interface SqlDialectRules {
  /** `#` starts a comment to the end of the line (MySQL); elsewhere it is an operator. */
  hashComments: boolean;
  /** `"..."` is a string literal (MySQL's default), not a quoted identifier. */
  doubleQuotedStrings: boolean;
  /** Backslash escapes the next character inside quoted strings (MySQL's default). */
  backslashEscapes: boolean;
  /** Backtick-quoted identifiers lose their quotes when they are plain words (MySQL, SQLite). */
  unquoteBackticks: boolean;
  /** `$1`, `$2`... are placeholders and `$tag$...$tag$` quotes a string (PostgreSQL). */
  dollarParameters: boolean;
  /** Characters that start a named placeholder when a letter follows (`:name`, `@p1`, `$name`). */
  namedParameterPrefixes: string;
  /** `[...]` quotes an identifier (SQL Server, SQLite); elsewhere brackets build arrays. */
  bracketIdentifiers: boolean;
}

const postgresql: SqlDialectRules = { hashComments: false, doubleQuotedStrings: false, backslashEscapes: false, unquoteBackticks: false, dollarParameters: true, namedParameterPrefixes: '', bracketIdentifiers: false };
const mysql: SqlDialectRules = { hashComments: true, doubleQuotedStrings: true, backslashEscapes: true, unquoteBackticks: true, dollarParameters: false, namedParameterPrefixes: ':', bracketIdentifiers: false };
const sqlServer: SqlDialectRules = { hashComments: false, doubleQuotedStrings: false, backslashEscapes: false, unquoteBackticks: false, dollarParameters: false, namedParameterPrefixes: '@', bracketIdentifiers: true };
const oracle: SqlDialectRules = { hashComments: false, doubleQuotedStrings: false, backslashEscapes: false, unquoteBackticks: false, dollarParameters: false, namedParameterPrefixes: ':', bracketIdentifiers: false };
const sqlite: SqlDialectRules = { hashComments: false, doubleQuotedStrings: false, backslashEscapes: false, unquoteBackticks: true, dollarParameters: false, namedParameterPrefixes: ':@$', bracketIdentifiers: true };
/** Other SQL databases: the common ground (`?`, `:name` and `@name` placeholders, standard quoting). */
export const genericSql: SqlDialectRules = { hashComments: false, doubleQuotedStrings: false, backslashEscapes: false, unquoteBackticks: false, dollarParameters: false, namedParameterPrefixes: ':@', bracketIdentifiers: false };

/** OpenTelemetry `db.system` (and `db.system.name`) values of SQL databases, with their rules. */
const dialectBySystem: Readonly<Record<string, SqlDialectRules>> = {
  postgresql,
  postgres: postgresql,
  cockroachdb: postgresql,
  redshift: postgresql,
  mysql,
  mariadb: mysql,
  tidb: mysql,
  mssql: sqlServer,
  'microsoft.sql_server': sqlServer,
  oracle,
  'oracle.db': oracle,
  sqlite,
  db2: genericSql,
  'ibm.db2': genericSql,
  h2: genericSql,
  hsqldb: genericSql,
  derby: genericSql,
  informix: genericSql,
  hive: genericSql,
  trino: genericSql,
  clickhouse: genericSql,
  snowflake: genericSql,
  spanner: genericSql,
  'gcp.spanner': genericSql,
  cassandra: genericSql,
  other_sql: genericSql,
};

/** The rules of a SQL database system, or undefined when the system does not speak SQL. */
export function sqlDialectOf(system: string): SqlDialectRules | undefined {
  return dialectBySystem[system.toLowerCase()];
}

const repeatedPlaceholders = /\(\s*\?(?:\s*,\s*\?)+\s*\)/g;
const repeatedArrayItems = /\[\s*\?(?:\s*,\s*\?)+\s*\]/g;
const repeatedGroups = /\(\?\)(?:\s*,\s*\(\?\))+/g;
const plainWord = /^[A-Za-z_][A-Za-z0-9_$]*$/;

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36 || code > 127;
}
function isLetter(char: string | undefined): boolean {
  return char !== undefined && /[A-Za-z_]/.test(char);
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/**
 * Index just past a quoted run starting at `start`: a doubled quote is an escaped one, and with
 * `backslash` a backslash escapes the next character. The end of the text if it never closes.
 */
function skipQuoted(text: string, start: number, quote: string, backslash: boolean): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text[i];
    if (backslash && char === '\\') i += 2;
    else if (char === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return text.length;
}

/** Index just past a number literal starting at `start` (decimal, fraction, exponent, or 0x hex). */
function skipNumber(text: string, start: number): number {
  let j = start;
  if (text[j] === '0' && (text[j + 1] === 'x' || text[j + 1] === 'X')) {
    j += 2;
    while (j < text.length && /[0-9A-Fa-f]/.test(text[j]!)) j += 1;
    return j;
  }
  while (isDigit(text.charCodeAt(j))) j += 1;
  if (text[j] === '.') {
    j += 1;
    while (isDigit(text.charCodeAt(j))) j += 1;
  }
  if ((text[j] === 'e' || text[j] === 'E') && (isDigit(text.charCodeAt(j + 1)) || ((text[j + 1] === '+' || text[j + 1] === '-') && isDigit(text.charCodeAt(j + 2))))) {
    j += 2;
    while (isDigit(text.charCodeAt(j))) j += 1;
  }
  return j;
}

/** A sign before a number is part of the literal when what precedes it cannot end an operand. */
function signStartsLiteral(out: string): boolean {
  const last = out.trimEnd().at(-1);
  return last === undefined || '(,=<>'.includes(last);
}

/**
 * The statement's shape under `rules`: string, numeric, boolean and dollar-quoted literals and
 * placeholders become `?` (a `::type` cast right after one goes with it), parenthesized and
 * bracketed lists of them collapse to `(?)` / `[?]` (so `IN (1, 2, 3)` and `IN ($1)` agree, and
 * multi-row VALUES collapse to one group), comments go and whitespace collapses to one space.
 * Identifiers stay as written, except MySQL/SQLite backtick quotes around a plain word. A
 * hand-written scanner: it runs for every database occurrence ingested.
 */
export function sqlStatementShape(statement: string, rules: SqlDialectRules): string {
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
    } else if (char === "'" || (char === '"' && rules.doubleQuotedStrings)) {
      emit('?');
      i = skipQuoted(text, i, char, rules.backslashEscapes);
    } else if ((char === 'E' || char === 'e' || char === 'N' || char === 'n' || char === 'X' || char === 'x' || char === 'B' || char === 'b') && next === "'" && !isWordChar(text.charCodeAt(i - 1))) {
      // E'...' (escape string), N'...' (national), X'..' / B'..' (hex and bit strings).
      emit('?');
      i = skipQuoted(text, i + 1, "'", rules.backslashEscapes || char === 'E' || char === 'e');
    } else if (char === '"' || char === '`') {
      const end = skipQuoted(text, i, char, false);
      const quoted = text.slice(i, end);
      const inner = quoted.slice(1, -1);
      emit(char === '`' && rules.unquoteBackticks && plainWord.test(inner) ? inner : quoted);
      i = end;
    } else if (char === '[' && rules.bracketIdentifiers) {
      const close = text.indexOf(']', i);
      const end = close === -1 ? text.length : close + 1;
      emit(text.slice(i, end));
      i = end;
    } else if ((char === '-' && next === '-') || (char === '#' && rules.hashComments)) {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? text.length : newline;
      pendingSpace = true;
    } else if (char === '/' && next === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 2;
      pendingSpace = true;
    } else if (char === '$' && rules.dollarParameters && (isDigit(text.charCodeAt(i + 1)) || next === '$' || isLetter(next))) {
      let j = i + 1;
      if (isDigit(text.charCodeAt(j))) {
        while (isDigit(text.charCodeAt(j))) j += 1;
        emit('?');
        i = j;
        continue;
      }
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j]!)) j += 1;
      if (text[j] === '$') {
        const tag = text.slice(i, j + 1);
        const close = text.indexOf(tag, j + 1);
        emit('?');
        i = close === -1 ? text.length : close + tag.length;
      } else {
        emit(text.slice(i, j));
        i = j;
      }
    } else if (char === ':' && next === ':') {
      // A cast: after a literal or placeholder it belongs to the value and goes with it.
      let j = i + 2;
      while (j < text.length && (isWordChar(text.charCodeAt(j)) || text[j] === '.')) j += 1;
      if (out.endsWith('?') && !pendingSpace) {
        while (text[j] === '[' && text[j + 1] === ']') j += 2;
        i = j;
      } else {
        emit(text.slice(i, j));
        i = j;
      }
    } else if (rules.namedParameterPrefixes.includes(char) && (isLetter(next) || (char === ':' && isDigit(text.charCodeAt(i + 1))))) {
      let j = i + 1;
      while (j < text.length && isWordChar(text.charCodeAt(j))) j += 1;
      emit('?');
      i = j;
    } else if (char === '?') {
      // `?`, and SQLite's numbered `?NNN`.
      let j = i + 1;
      while (isDigit(text.charCodeAt(j))) j += 1;
      emit('?');
      i = j;
    } else if (isDigit(code) || (char === '.' && next !== undefined && isDigit(next.charCodeAt(0)) && !isWordChar(text.charCodeAt(i - 1)))) {
      emit('?');
      i = skipNumber(text, i);
    } else if ((char === '-' || char === '+') && next !== undefined && (isDigit(next.charCodeAt(0)) || next === '.') && signStartsLiteral(out)) {
      emit('?');
      i = skipNumber(text, i + 1);
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
  if (!out.includes(',')) return out;
  return out.replace(repeatedPlaceholders, '(?)').replace(repeatedArrayItems, '[?]').replace(repeatedGroups, '(?)');
}
