/** The periods a board can keep: the whole history, each UTC day, ISO week or month, or each window of its event. */
export type PeriodKind = 'all' | 'daily' | 'weekly' | 'monthly' | 'event';

/** A length of time in an event schedule: `{ hours: 6 }` or `{ days: 7 }`. */
export interface EventSpan {
  readonly days?: number | undefined;
  readonly hours?: number | undefined;
}

/**
 * A time-boxed board: one window (`startsAt`, `endsAt`) or cycles `every` span from `anchor`,
 * each lasting `lasts` (default: `every`); times are ISO 8601 on whole minutes. Runs outside a
 * window do not score on the board; past its end a window's standings are frozen.
 */
export interface BoardEvent {
  readonly startsAt?: string | undefined;
  readonly endsAt?: string | undefined;
  readonly anchor?: string | undefined;
  readonly every?: EventSpan | undefined;
  readonly lasts?: EventSpan | undefined;
  /** New players beyond this many entries in a window are refused on the board; entrants still improve. */
  readonly maxEntrants?: number | undefined;
}

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
  readonly event?: BoardEvent | undefined;
  /**
   * A second value of the same adapter's result, in its own order, that ranks entries tied on
   * the score before their time. Not on `sum` boards (a sum has no one run to take it from).
   */
  readonly subscore?: BoardSubscore | undefined;
}

/** A board's tie-break: the adapter output it is read from and which way is better. */
export interface BoardSubscore {
  readonly value: string;
  readonly order: SortOrder;
}

/** One (board, period) ranking: the unit the store pages and the rank engine indexes. */
export interface RankedSet {
  readonly gameId: string;
  readonly boardId: string;
  readonly order: SortOrder;
  /** The subscore's order when the board declares one; without, every entry's subscore is 0. */
  readonly subscoreOrder?: SortOrder | undefined;
  /** `all`, or a period key: `2026-11-21`, `2026-W47`, `2026-11`, an event window's start `2026-11-27T18:00Z`. */
  readonly period: string;
  /** An event window's bounds (epoch ms, end exclusive); a calendar period's come from its key. */
  readonly window?: { readonly startMs: number; readonly endMs: number } | undefined;
}

/** A stable identifier of a ranked set, used as the rank engine's key. */
export function rankedSetId(set: Pick<RankedSet, 'gameId' | 'boardId' | 'period'>): string {
  // Game and board ids cannot contain ':' (manifest id pattern), so the join is unambiguous.
  return `${set.gameId}:${set.boardId}:${set.period}`;
}
