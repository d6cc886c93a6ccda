import type { BoardEvent, EventSpan } from './ranked-board.js';

/** Where an event period stands at a moment: not begun, taking runs, or over (its standings frozen). */
export type EventState = 'upcoming' | 'live' | 'ended';

/** One window of an event board: its period key (the start, `2026-11-27T18:00Z`) and its bounds (end exclusive). */
export interface EventCycle {
  readonly key: string;
  readonly startMs: number;
  readonly endMs: number;
}

/** A board's event in numbers: cycles every `everyMs` from `anchorMs`, each lasting `lastsMs` (one window: one cycle). */
interface Schedule {
  readonly anchorMs: number;
  /** Infinity for a one-off window. */
  readonly everyMs: number;
  readonly lastsMs: number;
}

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** Event keys name a whole UTC minute: `2026-11-27T18:00Z`. */
const eventKeyPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/;

/** A span's length: `{ hours: 6 }` or `{ days: 7 }`. */
export function spanMs(span: EventSpan): number {
  return (span.days ?? 0) * dayMs + (span.hours ?? 0) * hourMs;
}

/** The period key of a cycle starting at `startMs` (a whole minute): `2026-11-27T18:00Z`. */
export function eventKeyOf(startMs: number): string {
  return `${new Date(startMs).toISOString().slice(0, 16)}Z`;
}

/** True for a string shaped like an event period key (whether a board has that cycle is `cycleOfKey`'s question). */
export function isEventKey(key: string): boolean {
  return eventKeyPattern.test(key);
}

const schedules = new WeakMap<BoardEvent, Schedule>();

/** The event's schedule, parsed once per manifest object (the manifest check has vouched for its shape). */
function scheduleOf(event: BoardEvent): Schedule {
  let schedule = schedules.get(event);
  if (!schedule) {
    if (event.every) {
      const everyMs = spanMs(event.every);
      schedule = { anchorMs: Date.parse(event.anchor!), everyMs, lastsMs: event.lasts ? spanMs(event.lasts) : everyMs };
    } else {
      const anchorMs = Date.parse(event.startsAt!);
      schedule = { anchorMs, everyMs: Infinity, lastsMs: Date.parse(event.endsAt!) - anchorMs };
    }
    schedules.set(event, schedule);
  }
  return schedule;
}

function cycleNumbered(schedule: Schedule, n: number): EventCycle {
  const startMs = n === 0 ? schedule.anchorMs : schedule.anchorMs + n * schedule.everyMs;
  return { key: eventKeyOf(startMs), startMs, endMs: startMs + schedule.lastsMs };
}

/** The number of the last cycle started at `atMs` (-1 before the first). */
function lastStarted(schedule: Schedule, atMs: number): number {
  if (atMs < schedule.anchorMs) return -1;
  return Number.isFinite(schedule.everyMs) ? Math.floor((atMs - schedule.anchorMs) / schedule.everyMs) : 0;
}

/** The cycle taking runs at `atMs`, or undefined (before the first, after a window, or between cycles shorter than their interval). */
export function cycleAt(event: BoardEvent, atMs: number): EventCycle | undefined {
  const schedule = scheduleOf(event);
  const n = lastStarted(schedule, atMs);
  if (n < 0) return undefined;
  const cycle = cycleNumbered(schedule, n);
  return atMs < cycle.endMs ? cycle : undefined;
}

/**
 * The cycle `period=event` reads at `nowMs`: the live one, else the last one started (its final
 * standings), else the first (upcoming).
 */
export function currentCycle(event: BoardEvent, nowMs: number): EventCycle {
  const schedule = scheduleOf(event);
  return cycleNumbered(schedule, Math.max(0, lastStarted(schedule, nowMs)));
}

/** The cycle whose key is `key`, or undefined when the board has no cycle starting then. */
export function cycleOfKey(event: BoardEvent, key: string): EventCycle | undefined {
  if (!isEventKey(key)) return undefined;
  const startMs = Date.parse(key);
  const schedule = scheduleOf(event);
  const offset = startMs - schedule.anchorMs;
  if (!Number.isFinite(startMs) || offset < 0) return undefined;
  const n = Number.isFinite(schedule.everyMs) ? offset / schedule.everyMs : offset === 0 ? 0 : NaN;
  return Number.isInteger(n) ? cycleNumbered(schedule, n) : undefined;
}

/** Why a run at `atMs` does not enter the event: it has not begun, or it is over (a later cycle may come). */
export function outsideReason(event: BoardEvent, atMs: number): 'event-not-started' | 'event-ended' {
  return lastStarted(scheduleOf(event), atMs) < 0 ? 'event-not-started' : 'event-ended';
}

/** A cycle's state at `nowMs`. */
export function eventState(cycle: Pick<EventCycle, 'startMs' | 'endMs'>, nowMs: number): EventState {
  return nowMs < cycle.startMs ? 'upcoming' : nowMs < cycle.endMs ? 'live' : 'ended';
}
