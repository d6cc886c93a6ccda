/**
 * The reference deterministic game: 2048 on a 4x4 board driven by a seeded PRNG, so the server
 * can replay a run from its seed and moves and derive the score itself. The rules are fixed by
 * this file; a client must implement them identically: mulberry32 seeded with the run's seed;
 * two tiles spawn at the start and one after every move that changes the board; a spawn picks an
 * empty cell (row-major order) with floor(r * count) and is a 2 when the next r < 0.9, else a 4.
 */
import { mulberry32 } from '@playstack/server-kit';

/** The PRNG the rules are defined with (see above), for clients and tests to check their own against. */
export { mulberry32 };

export const boardSize = 4;
const cellCount = boardSize * boardSize;
/** Chance that a spawned tile is a 2 rather than a 4. */
const twoTileProbability = 0.9;

export type Direction = 'U' | 'D' | 'L' | 'R';

/** Final state of a replayed game. */
export interface GameOutcome {
  /** Sum of the values of every merged tile. */
  readonly score: number;
  readonly maxTile: number;
  /** Moves that changed the board; a move that changes nothing is ignored, as in the game. */
  readonly moves: number;
  readonly board: readonly number[];
}

/** Places a 2 (or rarely a 4) on an empty cell chosen by the PRNG; empty cells in row-major order. */
function spawnTile(board: number[], random: () => number): void {
  const empty: number[] = [];
  for (let i = 0; i < cellCount; i += 1) if (board[i] === 0) empty.push(i);
  if (empty.length === 0) return;
  const cell = empty[Math.floor(random() * empty.length)]!;
  board[cell] = random() < twoTileProbability ? 2 : 4;
}

/** Cell indexes of each line, ordered from the edge tiles move towards. */
function linesFor(direction: Direction): number[][] {
  const lines: number[][] = [];
  for (let a = 0; a < boardSize; a += 1) {
    const line: number[] = [];
    for (let b = 0; b < boardSize; b += 1) {
      if (direction === 'L') line.push(a * boardSize + b);
      else if (direction === 'R') line.push(a * boardSize + (boardSize - 1 - b));
      else if (direction === 'U') line.push(b * boardSize + a);
      else line.push((boardSize - 1 - b) * boardSize + a);
    }
    lines.push(line);
  }
  return lines;
}

const lineCache: Record<Direction, number[][]> = { U: linesFor('U'), D: linesFor('D'), L: linesFor('L'), R: linesFor('R') };

/**
 * Slides every line of a board (row-major, in place) towards the move's edge, merging equal
 * neighbours once per move, the pair nearest the edge first. Returns the points scored, or -1
 * when nothing moved.
 */
export function slide(board: number[], direction: Direction): number {
  let gained = 0;
  let changed = false;
  for (const line of lineCache[direction]) {
    const tiles: number[] = [];
    for (const cell of line) if (board[cell] !== 0) tiles.push(board[cell]!);
    const merged: number[] = [];
    for (let i = 0; i < tiles.length; i += 1) {
      if (i + 1 < tiles.length && tiles[i] === tiles[i + 1]) {
        const value = tiles[i]! * 2;
        merged.push(value);
        gained += value;
        i += 1;
      } else {
        merged.push(tiles[i]!);
      }
    }
    for (let i = 0; i < boardSize; i += 1) {
      const value = merged[i] ?? 0;
      const cell = line[i]!;
      if (board[cell] !== value) {
        board[cell] = value;
        changed = true;
      }
    }
  }
  return changed ? gained : -1;
}

/** Replays a game from its seed (an unsigned 32-bit integer) and its moves (`U`, `D`, `L`, `R`). */
export function replay2048(seed: number, moves: string): GameOutcome {
  const random = mulberry32(seed);
  const board = new Array<number>(cellCount).fill(0);
  spawnTile(board, random);
  spawnTile(board, random);
  let score = 0;
  let effectiveMoves = 0;
  for (const move of moves) {
    const gained = slide(board, move as Direction);
    if (gained < 0) continue;
    score += gained;
    effectiveMoves += 1;
    spawnTile(board, random);
  }
  return { score, maxTile: Math.max(...board), moves: effectiveMoves, board };
}
