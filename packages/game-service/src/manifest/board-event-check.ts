import { eventTimePattern } from './manifest-schema.js';

/** One thing wrong with a board's event: where and why (the manifest check's `ManifestProblem`). */
interface Problem {
  readonly path: string;
  readonly reason: string;
}

type Loose = Record<string, unknown>;

const timePattern = new RegExp(eventTimePattern);
const minuteMs = 60_000;
const hourMs = 60 * minuteMs;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A time the schema accepted, in epoch ms, or undefined (absent, or already reported by the schema). */
function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !timePattern.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A span's length in ms, or undefined when it is not exactly one of days or hours. */
function spanOf(value: unknown): number | undefined {
  if (!isObject(value)) return undefined;
  const { days, hours } = value;
  if ((days === undefined) === (hours === undefined)) return undefined;
  const count = days ?? hours;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return undefined;
  return days !== undefined ? count * 24 * hourMs : count * hourMs;
}

/**
 * What the schema cannot say about a board's `event`: a window or a schedule (not both, not
 * neither), times on whole minutes (window keys name a minute), an end after the start, a window
 * no longer than its interval, and the `event` period kept exactly when there is an event.
 */
export function checkBoardEvent(board: Loose, at: string): Problem[] {
  const problems: Problem[] = [];
  const keepsEvent = Array.isArray(board.periods) && board.periods.includes('event');
  const event = board.event;
  if (event === undefined) {
    if (keepsEvent) problems.push({ path: `${at}.periods`, reason: 'keeps the event period, but the board has no event (startsAt and endsAt, or anchor and every)' });
    return problems;
  }
  if (!isObject(event)) return problems;
  const eventAt = `${at}.event`;
  if (!keepsEvent) problems.push({ path: `${at}.periods`, reason: 'must include "event": an event board keeps a period for each window' });

  for (const member of ['startsAt', 'endsAt', 'anchor'] as const) {
    const ms = timeOf(event[member]);
    if (ms !== undefined && ms % minuteMs !== 0) problems.push({ path: `${eventAt}.${member}`, reason: 'must be a whole minute (no seconds): windows are named by their starting minute' });
  }
  const isWindow = event.startsAt !== undefined || event.endsAt !== undefined;
  const isSchedule = event.anchor !== undefined || event.every !== undefined || event.lasts !== undefined;
  if (isWindow && isSchedule) {
    problems.push({ path: eventAt, reason: 'is one window (startsAt, endsAt) or a recurring schedule (anchor, every, lasts), not both' });
    return problems;
  }
  if (!isWindow && !isSchedule) {
    problems.push({ path: eventAt, reason: 'needs a window (startsAt and endsAt) or a recurring schedule (anchor and every)' });
    return problems;
  }
  if (isWindow) {
    for (const member of ['startsAt', 'endsAt'] as const) if (event[member] === undefined) problems.push({ path: `${eventAt}.${member}`, reason: 'is required for a window' });
    const startsAt = timeOf(event.startsAt);
    const endsAt = timeOf(event.endsAt);
    if (startsAt !== undefined && endsAt !== undefined && endsAt <= startsAt) problems.push({ path: `${eventAt}.endsAt`, reason: 'must be after startsAt' });
    return problems;
  }
  for (const member of ['anchor', 'every'] as const) if (event[member] === undefined) problems.push({ path: `${eventAt}.${member}`, reason: 'is required for a recurring schedule' });
  for (const member of ['every', 'lasts'] as const) {
    if (isObject(event[member]) && spanOf(event[member]) === undefined) problems.push({ path: `${eventAt}.${member}`, reason: 'must give exactly one of days or hours' });
  }
  const every = spanOf(event.every);
  const lasts = spanOf(event.lasts);
  if (every !== undefined && lasts !== undefined && lasts > every) problems.push({ path: `${eventAt}.lasts`, reason: 'must not be longer than every (windows would overlap)' });
  return problems;
}
