import { Type, type Static } from '@sinclair/typebox';

/**
 * How a board's scores read: `integer` (the default: 12,345), `decimal` (up to 3 decimals:
 * 12,345.678), `duration-ms` (milliseconds as `m:ss.SSS`, `h:mm:ss.SSS` from an hour) and
 * `duration-s` (seconds as `m:ss`, `h:mm:ss` from an hour). Scores are stored and answered as
 * numbers whatever the format: it tells readers (the admin pages, a game) how to show them.
 */
export const ScoreFormat = Type.Union([Type.Literal('integer'), Type.Literal('decimal'), Type.Literal('duration-ms'), Type.Literal('duration-s')], {
  description: 'how scores read: integer (12,345), decimal (12,345.678), duration-ms (m:ss.SSS), duration-s (m:ss)',
});
export type ScoreFormat = Static<typeof ScoreFormat>;

export const defaultScoreFormat: ScoreFormat = 'integer';

/** A board's optional unit, shown after formatted scores (`pts`, `m`, `coins`). */
export const ScoreUnit = Type.String({ minLength: 1, maxLength: 16, description: 'shown after each score, e.g. pts' });

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimals = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** A score as its board's format shows it, with the unit after it when the board has one. */
export function formatScore(score: number, format: ScoreFormat = defaultScoreFormat, unit?: string): string {
  const text = format === 'integer' ? grouped.format(score) : format === 'decimal' ? decimals.format(score) : duration(score, format === 'duration-ms');
  return unit === undefined ? text : `${text} ${unit}`;
}

/** `[h:]m:ss[.SSS]` of a count of milliseconds (`fractions`) or seconds, rounded to its last digit; negative with a `-`. */
function duration(value: number, fractions: boolean): string {
  const ms = fractions ? Math.round(Math.abs(value)) : Math.round(Math.abs(value)) * 1000;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const clock = hours > 0 ? `${hours}:${pad(minutes, 2)}:${pad(seconds, 2)}` : `${minutes}:${pad(seconds, 2)}`;
  return `${value < 0 && ms > 0 ? '-' : ''}${clock}${fractions ? `.${pad(ms % 1000, 3)}` : ''}`;
}
