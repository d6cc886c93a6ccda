/** The periods a board can keep: the whole history, or each UTC day, ISO week or month. */
export type PeriodKind = 'all' | 'daily' | 'weekly' | 'monthly';

/** `desc`: higher scores rank first; `asc`: lower scores (times, moves) rank first. */
export type SortOrder = 'asc' | 'desc';

/** How a player's results combine into their one entry per period. */
export type ScoreOperator = 'best' | 'latest' | 'sum';

/**
 * What leaderboards need of a board. The manifest's `BoardDefinition` satisfies it
 * structurally, so this feature does not depend on the manifest's module.
 */
export interface RankedBoard {
  readonly id: string;
  readonly order: SortOrder;
  readonly operator: ScoreOperator;
  readonly periods: readonly PeriodKind[];
}

/** One (board, period) ranking: the unit the store pages and the rank engine indexes. */
export interface RankedSet {
  readonly gameId: string;
  readonly boardId: string;
  readonly order: SortOrder;
  /** `all`, or a period key: `2026-11-21`, `2026-W47`, `2026-11`. */
  readonly period: string;
}

/** A stable identifier of a ranked set, used as the rank engine's key. */
export function rankedSetId(set: Pick<RankedSet, 'gameId' | 'boardId' | 'period'>): string {
  // Game and board ids cannot contain ':' (manifest id pattern), so the join is unambiguous.
  return `${set.gameId}:${set.boardId}:${set.period}`;
}
