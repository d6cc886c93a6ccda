import { ApiError } from '@playstack/server-kit';
import type { PeriodKind, RankedBoard } from './ranked-board.js';
import './leaderboard-error-codes.js';

/** A resolved period: its kind and its key (`all` for the all-time period). */
export interface PeriodKey {
  readonly kind: PeriodKind;
  readonly key: string;
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
export function periodKeyAt(kind: PeriodKind, atMs: number): string {
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
export function parsePeriodKey(key: string): { kind: PeriodKind; startMs: number; endMs: number } | undefined {
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

const currentPeriodNames: ReadonlySet<string> = new Set<PeriodKind>(['all', 'daily', 'weekly', 'monthly']);

/**
 * Resolves a requested period (`all`, `daily`, `weekly`, `monthly` for the current one, or an
 * explicit key of a past or current period) for a board. Throws 400 `invalid-period` for a
 * malformed key, a future period, or a kind the board does not keep.
 */
export function resolvePeriod(board: RankedBoard, requested: string, nowMs: number): PeriodKey {
  let kind: PeriodKind;
  let key: string;
  if (currentPeriodNames.has(requested)) {
    kind = requested as PeriodKind;
    key = periodKeyAt(kind, nowMs);
  } else {
    const parsed = parsePeriodKey(requested);
    if (!parsed) {
      throw new ApiError('invalid-period', `period "${requested}" is not all, daily, weekly, monthly or a key like 2026-11-21, 2026-W47, 2026-11.`);
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

/** The period keys a result achieved at `achievedAtMs` counts towards, one per period the board keeps. */
export function periodKeysFor(board: RankedBoard, achievedAtMs: number): PeriodKey[] {
  return board.periods.map((kind) => ({ kind, key: periodKeyAt(kind, achievedAtMs) }));
}

/** True when `key` is the all-time period or the period of its kind that contains `nowMs`. */
export function isCurrentPeriod(key: string, nowMs: number): boolean {
  const parsed = parsePeriodKey(key);
  return parsed !== undefined && parsed.startMs <= nowMs && nowMs < parsed.endMs;
}
