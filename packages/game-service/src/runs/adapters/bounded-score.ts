import { Type, type Static } from '@sinclair/typebox';
import type { AdapterType } from './adapter-type.js';
import { compareHints, HintsSchema } from './hints.js';

const defaultMinScore = 0;
const defaultMaxScore = Number.MAX_SAFE_INTEGER;
/** The longest run the payload may describe: 30 days. */
const maxDurationMs = 30 * 24 * 60 * 60 * 1000;

export const BoundedScoreOptions = Type.Object(
  {
    minScore: Type.Optional(Type.Integer({ description: `lowest plausible score (default ${defaultMinScore})` })),
    maxScore: Type.Optional(Type.Integer({ description: 'highest plausible score (default: no bound below 2^53)' })),
    maxScorePerSecond: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'fastest plausible scoring rate (default: unbounded)' }),
    ),
  },
  { additionalProperties: false },
);
export type BoundedScoreOptions = Static<typeof BoundedScoreOptions>;

export const BoundedScorePayload = Type.Object(
  {
    score: Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
    durationMs: Type.Integer({ minimum: 0, maximum: maxDurationMs, description: 'length of the run in milliseconds' }),
    hints: Type.Optional(HintsSchema),
  },
  { additionalProperties: false },
);
export type BoundedScorePayload = Static<typeof BoundedScorePayload>;

/**
 * For games that cannot be replayed: the client reports a score and a duration, and the server
 * refuses what is implausible (out of range, or scored faster than the game allows).
 */
export const boundedScore: AdapterType<BoundedScoreOptions, BoundedScorePayload> = {
  id: 'bounded-score',
  version: 1,
  description:
    'Score and duration reported by the client, refused when outside [minScore, maxScore] or scored faster than maxScorePerSecond. Derives score and durationMs.',
  optionsSchema: BoundedScoreOptions,
  payloadSchema: BoundedScorePayload,
  outputs: ['score', 'durationMs'],
  derive(payload, { options }) {
    const minScore = options.minScore ?? defaultMinScore;
    const maxScore = options.maxScore ?? defaultMaxScore;
    if (payload.score < minScore) return { ok: false, reason: `score ${payload.score} is below the minimum ${minScore}` };
    if (payload.score > maxScore) return { ok: false, reason: `score ${payload.score} is above the maximum ${maxScore}` };
    const rate = options.maxScorePerSecond;
    // Compared as score * 1000 <= rate * durationMs so a zero duration needs no division.
    if (rate !== undefined && payload.score > 0 && payload.score * 1000 > rate * payload.durationMs) {
      return {
        ok: false,
        reason: `score ${payload.score} in ${payload.durationMs} ms exceeds the maximum of ${rate} points per second`,
      };
    }
    const result = { score: payload.score, durationMs: payload.durationMs };
    return { ok: true, result, hintMismatches: compareHints(payload.hints, result) };
  },
};
