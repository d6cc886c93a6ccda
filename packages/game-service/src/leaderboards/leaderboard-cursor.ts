import { ApiError } from '@playstack/server-kit';
import type { EntryPosition } from './leaderboard-store.js';
import type { RankedSet } from './ranked-board.js';

/** Cursors of boards without a subscore (a subscore of 0): the format every board had before subscores. */
const plainCursorVersion = 1;
/** Cursors of boards with a subscore: the position's subscore follows its score. */
const subscoreCursorVersion = 2;

/**
 * Opaque keyset cursors: base64url JSON of the last entry's position plus the game, board and
 * period it belongs to, and for a board of chosen players (friends) the digest of that set of
 * players. A position, not an offset, so pages stay stable while scores change; on a board with
 * a subscore the position includes it, so paging through a run of tied scores is exact. Cursors
 * carry nothing secret; binding them to their set is what keeps them honest.
 */
export function encodeCursor(set: RankedSet, position: EntryPosition, players?: string): string {
  const payload: unknown[] =
    set.subscoreOrder === undefined
      ? [plainCursorVersion, set.gameId, set.boardId, set.period, position.score, position.achievedAt, position.playerId]
      : [subscoreCursorVersion, set.gameId, set.boardId, set.period, position.score, position.subscore, position.achievedAt, position.playerId];
  if (players !== undefined) payload.push(players);
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/**
 * Decodes a cursor issued for this set (and this digest of chosen players, or the whole board
 * when undefined); 400 `invalid-cursor` for anything else. A cursor issued before the board
 * declared its subscore reads as subscore 0, what every entry recorded before then holds.
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
  if (!Array.isArray(payload)) throw invalid();
  const [version, gameId, boardId, period] = payload as unknown[];
  const withSubscore = version === subscoreCursorVersion;
  if (version !== plainCursorVersion && !withSubscore) throw invalid();
  if (withSubscore && set.subscoreOrder === undefined) throw invalid();
  const position = payload.slice(4);
  if (position.length !== (withSubscore ? 4 : 3) + (players === undefined ? 0 : 1)) throw invalid();
  const [score, subscore, achievedAt, playerId, digest] = withSubscore ? position : [position[0], 0, ...position.slice(1)];
  if (gameId !== set.gameId || boardId !== set.boardId || period !== set.period || digest !== players) throw invalid();
  if (typeof score !== 'number' || !Number.isFinite(score)) throw invalid();
  if (typeof subscore !== 'number' || !Number.isFinite(subscore)) throw invalid();
  if (typeof achievedAt !== 'number' || !Number.isSafeInteger(achievedAt)) throw invalid();
  if (typeof playerId !== 'string' || playerId.length === 0) throw invalid();
  return { score, subscore, achievedAt, playerId };
}
