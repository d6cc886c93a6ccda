import { sql } from 'kysely';
import { emptyRunCounts, type RunStatus } from './run-record.js';
import type { GameDb } from '../database.js';

const hourMs = 3_600_000;

/** One hour of a game's runs: when it starts (epoch ms, UTC) and how many runs of each status arrived in it. */
export interface RunHour {
  startsAt: number;
  counts: Record<RunStatus, number>;
}

/** The start (epoch ms) of the UTC hour holding `ms`. */
export function startOfHour(ms: number): number {
  return Math.floor(ms / hourMs) * hourMs;
}

/**
 * A game's runs per hour and status over `hours` whole UTC hours, the last one holding `now`;
 * every hour is listed, oldest first, those without runs as zeros. One grouped query over the
 * window: a range scan of the (game_id, created_at, status) index, which covers it.
 */
export async function runsPerHour(db: GameDb, gameId: string, now: number, hours: number): Promise<RunHour[]> {
  const from = startOfHour(now) - (hours - 1) * hourMs;
  const to = from + hours * hourMs;
  // Inlined integers (ours, not input): a bound number is a REAL to SQLite (so `/` would not
  // truncate), and PostgreSQL needs the grouped expression to be the selected one, parameter
  // numbers and all. created_at - from is never negative here, so `/` gives the hour's index.
  const hourIndex = sql<number>`(created_at - ${sql.lit(from)}) / ${sql.lit(hourMs)}`;
  const rows = await db
    .selectFrom('runs')
    .select((eb) => [hourIndex.as('hour'), 'status', eb.fn.countAll<number>().as('count')])
    .where('game_id', '=', gameId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy([hourIndex, 'status'])
    .execute();
  const buckets: RunHour[] = Array.from({ length: hours }, (_, i) => ({ startsAt: from + i * hourMs, counts: emptyRunCounts() }));
  for (const row of rows) buckets[Number(row.hour)]!.counts[row.status] = Number(row.count);
  return buckets;
}
