/** The longest display name kept, in code points (so at most 256 bytes of UTF-8). */
export const maxDisplayNameCodePoints = 64;
/** The name of a player whose provider sent none, or nothing but characters that are removed. */
export const defaultDisplayName = 'Player';

/**
 * Characters a display name never keeps: control characters (C0, DEL, C1), the bidirectional
 * embeddings, overrides and isolates and the direction marks (which let a name reorder the text
 * around it wherever it is shown), and line and paragraph separators.
 */
const removedCharacters = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/gu;
const whitespaceRun = /\s+/gu;
const segmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });

/**
 * A provider's display name made safe to store, show and put in a token: the removed characters
 * gone, whitespace runs collapsed, trimmed, and cut to `maxDisplayNameCodePoints` at a grapheme
 * boundary (an emoji or a letter with its accents is kept whole or not at all).
 */
export function boundedDisplayName(raw: string | undefined): string {
  const cleaned = (raw ?? '').replace(removedCharacters, '').replace(whitespaceRun, ' ').trim();
  // No more UTF-16 units than the limit: no more code points either, nothing to cut (splitting
  // into graphemes was most of a sign-in's time in this function).
  if (cleaned.length <= maxDisplayNameCodePoints) return cleaned || defaultDisplayName;
  let kept = '';
  let codePoints = 0;
  for (const { segment } of segmenter.segment(cleaned)) {
    const length = [...segment].length;
    if (codePoints + length > maxDisplayNameCodePoints) break;
    kept += segment;
    codePoints += length;
  }
  return kept.trimEnd() || defaultDisplayName;
}
