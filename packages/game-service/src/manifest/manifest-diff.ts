import { structuredPatch } from 'diff';
import { canonicalJson } from '../canonical-json.js';

/** Unchanged lines shown around each change. */
const contextLines = 3;

/** One run of changed lines and its context: each line starts with `+` (added), `-` (removed) or ` `. */
export interface ManifestDiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** A line diff of two manifests, each as pretty-printed canonical JSON (members sorted at every depth). */
export interface ManifestDiff {
  added: number;
  removed: number;
  hunks: ManifestDiffHunk[];
}

/** A document as the diff reads it: canonical (member order never shows as a change), two-space indented. */
export function prettyCanonicalJson(document: unknown): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(document)), null, 2)}\n`;
}

/** What going from `before` to `after` changes, line by line (`before` undefined: every line is added). */
export function manifestDiff(before: unknown, after: unknown): ManifestDiff {
  const patch = structuredPatch('before', 'after', before === undefined ? '' : prettyCanonicalJson(before), prettyCanonicalJson(after), '', '', { context: contextLines });
  const hunks = patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }));
  const count = (sign: string) => hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.startsWith(sign)).length, 0);
  return { added: count('+'), removed: count('-'), hunks };
}
