import { createHash } from 'node:crypto';

// One pass over the statement: the first alternative that matches at a position wins, so a
// quote inside a comment or a digit inside a quoted identifier is never mistaken for a literal.
const tokens =
  /(?<string>'(?:[^']|'')*'?)|(?<dollar>\$(?<tag>[A-Za-z_]*)\$[\s\S]*?(?:\$\k<tag>\$|$))|(?<identifier>"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])|(?<comment>--[^\n]*|#[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|(?<placeholder>\$\d+|:[A-Za-z_]\w*|@[A-Za-z_]\w*|\?)|(?<number>\b0x[0-9A-Fa-f]+\b|(?<![\w$])\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|(?<![\w$])\.\d+(?:[eE][+-]?\d+)?)|(?<keyword>\b(?:TRUE|FALSE|true|false)\b)|(?<space>\s+)/g;

const repeatedPlaceholders = /\(\s*\?(?:\s*,\s*\?)+\s*\)/g;
const repeatedGroups = /\(\?\)(?:\s*,\s*\(\?\))+/g;

/**
 * The shape of a SQL statement: string, numeric, boolean and dollar-quoted literals and bind
 * placeholders become `?`, lists of them collapse to `(?)` (so `IN (1, 2, 3)` and a multi-row
 * VALUES group with `IN (4)`), comments go and whitespace collapses. Identifiers, including
 * quoted ones, stay as written.
 */
export function normalizeStatement(statement: string): string {
  const replaced = statement.replace(tokens, (match, ...args: unknown[]) => {
    const groups = args.at(-1) as Record<string, string | undefined>;
    if (groups.identifier !== undefined) return match;
    if (groups.comment !== undefined || groups.space !== undefined) return ' ';
    return '?';
  });
  return replaced.replace(/\s+/g, ' ').trim().replace(repeatedPlaceholders, '(?)').replace(repeatedGroups, '(?)');
}

/** The key a normalized statement is grouped under: 16 hex characters of its SHA-256. */
export function statementHash(normalized: string): string {
  return createHash('sha256').update(normalized, 'utf8').digest('hex').slice(0, 16);
}

/** The statement's verb (`SELECT`, `INSERT`, ...), or undefined for an empty statement. */
export function statementVerb(normalized: string): string | undefined {
  const match = /^[(\s]*([A-Za-z]+)/.exec(normalized);
  return match?.[1]?.toUpperCase();
}
