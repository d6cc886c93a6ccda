import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ApiError } from '@playstack/server-kit/core';

/**
 * Text search over log bodies with the database's own full-text index, with the same meaning on
 * both: text is split into words at every character that is not a letter or a digit, words
 * compare case-insensitively and whole (no stemming, no prefixes: `lock` finds "lock" and "Lock",
 * not "locks" or "blocked"). A query is words separated by spaces; every word must occur. A word
 * with punctuation inside (`api/players`, `v1.2`) is a phrase: its parts must occur in that order,
 * next to each other.
 *
 * SQLite: FTS5, unicode61 tokenizer (diacritics kept, as PostgreSQL keeps them). PostgreSQL:
 * a GIN index over `to_tsvector('simple', ...)` of the body with non-alphanumerics turned into
 * spaces first, so the default parser's URL, path and e-mail tokens do not swallow the words in
 * them; `simple` neither stems nor drops stop words, which log lines (identifiers, codes) need.
 *
 * ClickHouse (18.16 has no token functions nor text indexes): a regular expression per word over
 * the lowercased body (`bodyWordsPattern`), scanning the bodies the other conditions leave. Its
 * words are runs of Unicode letters and digits (RE2's \pL and \pN); FTS5's unicode61 also
 * counts private-use characters (Co) as word characters, and case folding is ClickHouse's
 * lowerUTF8 and JavaScript's toLowerCase (the same for letters whose lower case has the same
 * UTF-8 length; lowerUTF8 leaves the others, e.g. 'ẞ' or 'İ', as they are).
 */

/** At most this many words in `q`. */
export const maxSearchTerms = 10;

const wordCharacter = /[\p{L}\p{N}]/u;

/** The words of a search; 400 when there is none, or too many. */
export function searchTerms(q: string): string[] {
  const terms = q.split(/\s+/).filter((term) => wordCharacter.test(term));
  if (terms.length === 0) throw new ApiError('invalid-request', 'q must contain at least one word (letters or digits).');
  if (terms.length > maxSearchTerms) throw new ApiError('invalid-request', `q holds at most ${maxSearchTerms} words; it has ${terms.length}.`);
  return terms;
}

/** An FTS5 query of the `body` column: each term a quoted string (a phrase of its tokens), all required. */
export function fts5BodyQuery(terms: readonly string[]): string {
  return `body : (${terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(' AND ')})`;
}

const nonWord = '[^\\pL\\pN]';
const wordSeparators = /[^\p{L}\p{N}]+/u;

/**
 * An RE2 pattern (ClickHouse's `match`) a lowercased body matches when it holds the term as a
 * whole word, or a term with punctuation as its words next to each other in that order.
 */
export function bodyWordsPattern(term: string): string {
  const words = term.toLowerCase().split(wordSeparators).filter((word) => word.length > 0);
  return `(?:^|${nonWord})${words.join(`${nonWord}+`)}(?:$|${nonWord})`;
}

/** The indexed expression of the PostgreSQL text index (the migration creates the index on exactly this). */
export function logBodyVector(): RawBuilder<unknown> {
  return sql`to_tsvector('simple'::regconfig, regexp_replace(coalesce(body, ''), '[^[:alnum:]]+', ' ', 'g'))`;
}

/** The body matches every term (PostgreSQL): a phrase query per term, normalized as the index is. */
export function postgresBodyMatches(terms: readonly string[]): RawBuilder<SqlBool> {
  const query = sql.join(
    terms.map((term) => sql`phraseto_tsquery('simple'::regconfig, regexp_replace(${term}::text, '[^[:alnum:]]+', ' ', 'g'))`),
    sql` && `,
  );
  return sql<SqlBool>`${logBodyVector()} @@ (${query})`;
}
