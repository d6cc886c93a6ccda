import type { ScoredBoard } from './leaderboard-game.js';
import type { EntryMetadata } from './leaderboard-store.js';
import { assertSupportedScore, type ScoredResult } from './score-operators.js';
import { defaultMetadataMaxBytes } from '../manifest/metadata-bounds.js';

/**
 * What one run's result puts on a board: its score, the subscore (0 when the board has none or
 * the result lacks it) and the metadata the board keeps (outputs the result lacks are left out;
 * none when the board keeps none). Throws a RangeError for a score or subscore outside
 * ±(2^53 − 1) (an adapter bug). Metadata that would still exceed the board's bound (an adapter
 * giving something other than finite numbers) is not kept: the entry then has none.
 */
export function boardResultOf(board: ScoredBoard, result: Readonly<Record<string, number>>, achievedAt: number): ScoredResult {
  const score = result[board.source.value]!;
  assertSupportedScore(score);
  const subscoreValue = board.subscore && result[board.subscore.value];
  const subscore = typeof subscoreValue === 'number' ? subscoreValue : 0;
  assertSupportedScore(subscore);
  return { score, subscore, achievedAt, metadata: metadataOf(board, result) };
}

function metadataOf(board: ScoredBoard, result: Readonly<Record<string, number>>): EntryMetadata | undefined {
  if (!board.metadata) return undefined;
  const kept: Record<string, number> = {};
  for (const value of board.metadata.values) {
    const output = result[value];
    if (typeof output === 'number' && Number.isFinite(output)) kept[value] = output;
  }
  const maxBytes = board.metadata.maxBytes ?? defaultMetadataMaxBytes;
  return Buffer.byteLength(JSON.stringify(kept)) <= maxBytes ? kept : undefined;
}
