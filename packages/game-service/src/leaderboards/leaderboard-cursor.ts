import { ApiError } from '@playstack/server-kit';
import type { EntryPosition } from './leaderboard-store.js';
import type { RankedSet } from './ranked-board.js';

const cursorVersion = 1;

/**
 * Opaque keyset cursors: base64url JSON of the last entry's position plus the game, board and
 * period it belongs to, and for a board of chosen players (friends) the digest of that set of
 * players. A position, not an offset, so pages stay stable while scores change. Cursors carry
 * nothing secret; binding them to their set is what keeps them honest.
 */
export function encodeCursor(set: RankedSet, position: EntryPosition, players?: string): string {
  const payload: unknown[] = [cursorVersion, set.gameId, set.boardId, set.period, position.score, position.achievedAt, position.playerId];
  if (players !== undefined) payload.push(players);
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/**
 * Decodes a cursor issued for this set (and this digest of chosen players, or the whole board
 * when undefined); 400 `invalid-cursor` for anything else.
 */
export function decodeCursor(set: RankedSet, cursor: string, players?: string): EntryPosition {
  const invalid = () => new ApiError('invalid-cursor', 'cursor is not one this leaderboard, period and set of players issued.');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(payload) || payload.length !== (players === undefined ? 7 : 8)) throw invalid();
  const [version, gameId, boardId, period, score, achievedAt, playerId, digest] = payload as unknown[];
  if (version !== cursorVersion || gameId !== set.gameId || boardId !== set.boardId || period !== set.period || digest !== players) throw invalid();
  if (typeof score !== 'number' || !Number.isFinite(score)) throw invalid();
  if (typeof achievedAt !== 'number' || !Number.isSafeInteger(achievedAt)) throw invalid();
  if (typeof playerId !== 'string' || playerId.length === 0) throw invalid();
  return { score, achievedAt, playerId };
}
