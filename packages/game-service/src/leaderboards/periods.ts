import { ApiError } from '@playstack/server-kit';
import { currentCycle, cycleAt, cycleOfKey, isEventKey, type EventCycle } from './event-schedule.js';
import type { PeriodKind, RankedBoard, RankedSet } from './ranked-board.js';
import './leaderboard-error-codes.js';

/** The calendar periods, whose keys say their bounds (every board's event has its own). */
export type CalendarPeriodKind = Exclude<PeriodKind, 'event'>;

/** A resolved period: its kind and its key (`all` for the all-time period); an event window's bounds too. */
export interface PeriodKey {
  readonly kind: PeriodKind;
  readonly key: string;
  readonly window?: { readonly startMs: number; readonly endMs: number } | undefined;
}

const dayMs = 86_400_000;
const weekMs = 7 * dayMs;
const minYear = 1970;
const maxYear = 9999;

const dayPattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const weekPattern = /^(\d{4})-W(\d{2})$/;
const monthPattern = /^(\d{4})-(\d{2})$/;

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Monday 00:00 UTC of ISO week 1 of an ISO week-year (the week holding 4 January). */
function isoWeekOneStart(isoYear: number): number {
  const jan4 = Date.UTC(isoYear, 0, 4);
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7;
  return jan4 - weekday * dayMs;
}

function isoWeeksInYear(isoYear: number): number {
  return Math.round((isoWeekOneStart(isoYear + 1) - isoWeekOneStart(isoYear)) / weekMs);
}

/** The key of the period of `kind` that contains the instant `atMs` (UTC). */
export function periodKeyAt(kind: CalendarPeriodKind, atMs: number): string {
  if (kind === 'all') return 'all';
  const date = new Date(atMs);
  const year = date.getUTCFullYear();
  switch (kind) {
    case 'daily':
      return `${year}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
    case 'monthly':
      return `${year}-${pad2(date.getUTCMonth() + 1)}`;
    case 'weekly': {
      const dayStart = Date.UTC(year, date.getUTCMonth(), date.getUTCDate());
      // The ISO week-year is the calendar year of the week's Thursday.
      const thursday = new Date(dayStart + (3 - ((date.getUTCDay() + 6) % 7)) * dayMs);
      const isoYear = thursday.getUTCFullYear();
      const week = Math.floor((dayStart - isoWeekOneStart(isoYear)) / weekMs) + 1;
      return `${isoYear}-W${pad2(week)}`;
    }
  }
}

/** Parses a period key into its kind and UTC start/end (end exclusive), or undefined if malformed. */
export function parsePeriodKey(key: string): { kind: CalendarPeriodKind; startMs: number; endMs: number } | undefined {
  if (key === 'all') return { kind: 'all', startMs: -Infinity, endMs: Infinity };
  let match = dayPattern.exec(key);
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const startMs = Date.UTC(year, month - 1, day);
    if (year < minYear || periodKeyAt('daily', startMs) !== key) return undefined;
    return { kind: 'daily', startMs, endMs: startMs + dayMs };
  }
  match = weekPattern.exec(key);
  if (match) {
    const [year, week] = [Number(match[1]), Number(match[2])];
    if (year < minYear || year > maxYear || week < 1 || week > isoWeeksInYear(year)) return undefined;
    const startMs = isoWeekOneStart(year) + (week - 1) * weekMs;
    return { kind: 'weekly', startMs, endMs: startMs + weekMs };
  }
  match = monthPattern.exec(key);
  if (match) {
    const [year, month] = [Number(match[1]), Number(match[2])];
    if (year < minYear || month < 1 || month > 12) return undefined;
    return { kind: 'monthly', startMs: Date.UTC(year, month - 1, 1), endMs: Date.UTC(year, month, 1) };
  }
  return undefined;
}

const currentPeriodNames: ReadonlySet<string> = new Set<PeriodKind>(['all', 'daily', 'weekly', 'monthly', 'event']);

function eventPeriod(cycle: EventCycle): PeriodKey {
  return { kind: 'event', key: cycle.key, window: { startMs: cycle.startMs, endMs: cycle.endMs } };
}

/**
 * Resolves a requested period (`all`, `daily`, `weekly`, `monthly`, `event` for the current one,
 * or an explicit key of a past or current period, or of any window of the board's event) for a
 * board. `event` is the live window, else the last one started, else the first. Throws 400
 * `invalid-period` for a malformed key, a future calendar period, a window the board's event
 * does not have, or a kind the board does not keep.
 */
export function resolvePeriod(board: RankedBoard, requested: string, nowMs: number): PeriodKey {
  let kind: PeriodKind;
  let key: string;
  if (requested === 'event' || isEventKey(requested)) {
    if (!board.event || !board.periods.includes('event')) throw new ApiError('invalid-period', `board "${board.id}" is not an event board.`);
    const cycle = requested === 'event' ? currentCycle(board.event, nowMs) : cycleOfKey(board.event, requested);
    if (!cycle) throw new ApiError('invalid-period', `board "${board.id}" has no event window starting at ${requested}.`);
    return eventPeriod(cycle);
  }
  if (currentPeriodNames.has(requested)) {
    kind = requested as CalendarPeriodKind;
    key = periodKeyAt(kind as CalendarPeriodKind, nowMs);
  } else {
    const parsed = parsePeriodKey(requested);
    if (!parsed) {
      throw new ApiError(
        'invalid-period',
        `period "${requested}" is not all, daily, weekly, monthly, event or a key like 2026-11-21, 2026-W47, 2026-11, 2026-11-27T18:00Z.`,
      );
    }
    if (parsed.startMs > nowMs) throw new ApiError('invalid-period', `period "${requested}" has not started yet.`);
    kind = parsed.kind;
    key = requested;
  }
  if (!board.periods.includes(kind)) {
    throw new ApiError('invalid-period', `board "${board.id}" keeps ${board.periods.join(', ')} periods, not ${kind}.`);
  }
  return { kind, key };
}

/** The key of the period of `kind` a result achieved at `atMs` counts towards on `board`; undefined outside every event window. */
function periodKeyOfBoardAt(board: RankedBoard, kind: PeriodKind, atMs: number): PeriodKey | undefined {
  if (kind !== 'event') return { kind, key: periodKeyAt(kind, atMs) };
  const cycle = board.event && cycleAt(board.event, atMs);
  return cycle && eventPeriod(cycle);
}

/**
 * The period keys a result achieved at `achievedAtMs` counts towards, one per period the board
 * keeps. An event board takes results inside its windows only: outside them, none.
 */
export function periodKeysFor(board: RankedBoard, achievedAtMs: number): PeriodKey[] {
  if (board.event && !cycleAt(board.event, achievedAtMs)) return [];
  const keys: PeriodKey[] = [];
  for (const kind of board.periods) {
    const key = periodKeyOfBoardAt(board, kind, achievedAtMs);
    if (key) keys.push(key);
  }
  return keys;
}

/** The key a result achieved at `achievedAtMs` has in one period kind of the board (a withdrawal's recomputation). */
export function periodKeyOfResult(board: RankedBoard, kind: PeriodKind, achievedAtMs: number): string | undefined {
  if (board.event && !cycleAt(board.event, achievedAtMs)) return undefined;
  return periodKeyOfBoardAt(board, kind, achievedAtMs)?.key;
}

/** The sets of a board whose period is running at `nowMs` (what the rank engine holds). */
export function currentPeriodsOf(board: RankedBoard, nowMs: number): PeriodKey[] {
  const keys: PeriodKey[] = [];
  for (const kind of board.periods) {
    const key = periodKeyOfBoardAt(board, kind, nowMs);
    if (key) keys.push(key);
  }
  return keys;
}

/** The board's ranked set of one period. */
export function rankedSetOf(gameId: string, board: RankedBoard, period: Pick<PeriodKey, 'key' | 'window'>): RankedSet {
  const set: RankedSet = board.subscore
    ? { gameId, boardId: board.id, order: board.order, subscoreOrder: board.subscore.order, period: period.key }
    : { gameId, boardId: board.id, order: board.order, period: period.key };
  return period.window ? { ...set, window: period.window } : set;
}

/** A set's period bounds (epoch ms, end exclusive); undefined for a key no calendar period has and no window. */
export function periodBounds(set: Pick<RankedSet, 'period' | 'window'>): { startMs: number; endMs: number } | undefined {
  return set.window ?? parsePeriodKey(set.period);
}

/** True when the set is the all-time period or a period that contains `nowMs`. */
export function isCurrentPeriod(set: Pick<RankedSet, 'period' | 'window'>, nowMs: number): boolean {
  const bounds = periodBounds(set);
  return bounds !== undefined && bounds.startMs <= nowMs && nowMs < bounds.endMs;
}
