import { ApiError } from '@playstack/server-kit';
import type { EntryPosition } from './leaderboard-store.js';
import type { RankedSet } from './ranked-board.js';

const cursorVersion = 1;

/**
 * Opaque keyset cursors: base64url JSON of the last entry's position plus the game, board and
 * period it belongs to. A position, not an offset, so pages stay stable while scores change.
 * Cursors carry nothing secret; binding them to their set is what keeps them honest.
 */
export function encodeCursor(set: RankedSet, position: EntryPosition): string {
  const payload = [cursorVersion, set.gameId, set.boardId, set.period, position.score, position.achievedAt, position.playerId];
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** Decodes a cursor issued for this set; 400 `invalid-cursor` for anything else. */
export function decodeCursor(set: RankedSet, cursor: string): EntryPosition {
  const invalid = () => new ApiError('invalid-cursor', 'cursor is not one this leaderboard and period issued.');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(payload) || payload.length !== 7) throw invalid();
  const [version, gameId, boardId, period, score, achievedAt, playerId] = payload as unknown[];
  if (version !== cursorVersion || gameId !== set.gameId || boardId !== set.boardId || period !== set.period) throw invalid();
  if (typeof score !== 'number' || !Number.isFinite(score)) throw invalid();
  if (typeof achievedAt !== 'number' || !Number.isSafeInteger(achievedAt)) throw invalid();
  if (typeof playerId !== 'string' || playerId.length === 0) throw invalid();
  return { score, achievedAt, playerId };
}
