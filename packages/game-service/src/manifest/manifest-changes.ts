import { canonicalJson } from '../canonical-json.js';
import type { GameDefinition, Manifest } from './manifest-schema.js';

/** A part of a manifest other features may hold data for. */
export type ManifestPart =
  | { readonly kind: 'game'; readonly gameId: string }
  | { readonly kind: 'board'; readonly gameId: string; readonly boardId: string }
  | { readonly kind: 'adapter'; readonly gameId: string; readonly adapterId: string };

/**
 * How much a feature holds for a part of the manifest (players of a game, runs of an adapter,
 * entries of a board...); 0 for kinds of part it holds nothing for. Features register one with
 * the catalog, so a change that would orphan their data is seen before it is stored.
 */
export type ManifestDataCounter = (part: ManifestPart) => Promise<number>;

/** A part a change removes while data still refers to it, and how much, by counter name. */
export interface OrphanedPart {
  readonly part: ManifestPart;
  readonly data: Readonly<Record<string, number>>;
}

/** True when two manifests are the same document, whatever the order of members. */
export function sameManifest(a: Manifest, b: Manifest): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The games, boards and adapters `previous` has and `next` does not (a removed game counts alone). */
export function removedParts(previous: Manifest, next: Manifest): ManifestPart[] {
  const nextGames = new Map(next.games.map((game) => [game.id, game]));
  const removed: ManifestPart[] = [];
  for (const game of previous.games) {
    const kept = nextGames.get(game.id);
    if (!kept) {
      removed.push({ kind: 'game', gameId: game.id });
      continue;
    }
    const keptBoards = new Set(kept.boards.map((board) => board.id));
    for (const board of game.boards) if (!keptBoards.has(board.id)) removed.push({ kind: 'board', gameId: game.id, boardId: board.id });
    for (const adapterId of Object.keys(game.adapters)) {
      if (!Object.hasOwn(kept.adapters, adapterId)) removed.push({ kind: 'adapter', gameId: game.id, adapterId });
    }
  }
  return removed;
}

export function describePart(part: ManifestPart): string {
  if (part.kind === 'game') return `game "${part.gameId}"`;
  if (part.kind === 'board') return `board "${part.gameId}/${part.boardId}"`;
  return `adapter "${part.gameId}/${part.adapterId}"`;
}

/** What one of each counted kind of data is called. */
const singularOf: Readonly<Record<string, string>> = { players: 'player', runs: 'run', entries: 'entry' };

/** `game "old" (3 players, 1 run)`. */
export function describeOrphan(orphan: OrphanedPart): string {
  const counts = Object.entries(orphan.data)
    .filter(([, count]) => count > 0)
    .map(([name, count]) => `${count} ${count === 1 ? (singularOf[name] ?? name) : name}`);
  return `${describePart(orphan.part)} (${counts.join(', ')})`;
}

/**
 * What a new version changes, in lines an operator reads in the history: games, boards and
 * adapters added, removed (with the data they orphan) or changed.
 */
export function describeChanges(previous: Manifest | undefined, next: Manifest, orphans: readonly OrphanedPart[]): string[] {
  if (!previous) return [`first stored version: ${next.games.map((game) => `game "${game.id}"`).join(', ') || 'no games'}`];
  const orphanText = new Map(orphans.map((orphan) => [describePart(orphan.part), describeOrphan(orphan)]));
  const removed = (part: ManifestPart) => {
    const orphan = orphanText.get(describePart(part));
    return orphan ? `removed ${orphan}, confirmed` : `removed ${describePart(part)}`;
  };
  const lines: string[] = [];
  const previousGames = new Map(previous.games.map((game) => [game.id, game]));
  const nextIds = new Set(next.games.map((game) => game.id));
  for (const game of previous.games) if (!nextIds.has(game.id)) lines.push(removed({ kind: 'game', gameId: game.id }));
  for (const game of next.games) {
    const before = previousGames.get(game.id);
    if (!before) lines.push(`added game "${game.id}"`);
    else lines.push(...gameChanges(before, game, removed));
  }
  if (canonicalJson({ ...previous, games: [] }) !== canonicalJson({ ...next, games: [] })) lines.push('changed the description');
  return lines.length > 0 ? lines : ['reordered members only'];
}

function gameChanges(before: GameDefinition, after: GameDefinition, removed: (part: ManifestPart) => string): string[] {
  const lines: string[] = [];
  const gameId = after.id;
  if (before.name !== after.name) lines.push(`renamed game "${gameId}" to "${after.name}"`);
  if (canonicalJson(before.auth) !== canonicalJson(after.auth)) lines.push(`changed the sign-in of game "${gameId}"`);
  const boardsBefore = new Map(before.boards.map((board) => [board.id, board]));
  const boardsAfter = new Set(after.boards.map((board) => board.id));
  for (const board of before.boards) if (!boardsAfter.has(board.id)) lines.push(removed({ kind: 'board', gameId, boardId: board.id }));
  for (const board of after.boards) {
    const previous = boardsBefore.get(board.id);
    if (!previous) lines.push(`added board "${gameId}/${board.id}"`);
    else if (canonicalJson(previous) !== canonicalJson(board)) lines.push(`changed board "${gameId}/${board.id}"`);
  }
  for (const [adapterId, binding] of Object.entries(before.adapters)) {
    if (!Object.hasOwn(after.adapters, adapterId)) lines.push(removed({ kind: 'adapter', gameId, adapterId }));
    else if (canonicalJson(binding) !== canonicalJson(after.adapters[adapterId])) lines.push(`changed adapter "${gameId}/${adapterId}"`);
  }
  for (const adapterId of Object.keys(after.adapters)) {
    if (!Object.hasOwn(before.adapters, adapterId)) lines.push(`added adapter "${gameId}/${adapterId}"`);
  }
  return lines;
}
