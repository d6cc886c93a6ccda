import { Type, type Static } from '@sinclair/typebox';
import type { AdapterType } from './adapter-type.js';
import { replay2048 } from './game-2048.js';
import { compareHints, HintsSchema } from './hints.js';

/** Hard ceiling on recorded moves, whatever the options say: bounds the replay's CPU time. */
export const maxRecordedMoves = 100_000;
const defaultMaxMoves = 20_000;

export const Replay2048Options = Type.Object(
  {
    maxMoves: Type.Optional(
      Type.Integer({ minimum: 1, maximum: maxRecordedMoves, description: `most moves a run may record (default ${defaultMaxMoves})` }),
    ),
  },
  { additionalProperties: false },
);
export type Replay2048Options = Static<typeof Replay2048Options>;

export const Replay2048Payload = Type.Object(
  {
    seed: Type.Integer({ minimum: 0, maximum: 0xffffffff, description: 'seed of the mulberry32 PRNG that places tiles' }),
    moves: Type.String({ pattern: '^[UDLR]*$', maxLength: maxRecordedMoves, description: 'one letter per swipe: U, D, L or R' }),
    hints: Type.Optional(HintsSchema),
  },
  { additionalProperties: false },
);
export type Replay2048Payload = Static<typeof Replay2048Payload>;

/**
 * Server-side replay of the reference 2048 game: the client sends the seed and its moves, the
 * server plays them and derives score, highest tile and effective move count itself.
 */
export const replay2048Adapter: AdapterType<Replay2048Options, Replay2048Payload> = {
  id: 'replay-2048',
  version: 1,
  description:
    'Replays a 4x4 2048 game from its seed and moves (U/D/L/R) and derives score, maxTile and moves; a claimed score in hints is only compared.',
  optionsSchema: Replay2048Options,
  payloadSchema: Replay2048Payload,
  outputs: ['score', 'maxTile', 'moves'],
  derive(payload, { options }) {
    const maxMoves = options.maxMoves ?? defaultMaxMoves;
    if (payload.moves.length > maxMoves) {
      return { ok: false, reason: `${payload.moves.length} moves recorded; this game allows at most ${maxMoves}` };
    }
    const outcome = replay2048(payload.seed, payload.moves);
    const result = { score: outcome.score, maxTile: outcome.maxTile, moves: outcome.moves };
    return { ok: true, result, hintMismatches: compareHints(payload.hints, result) };
  },
};
