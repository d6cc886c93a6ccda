import { Type, type Static } from '@sinclair/typebox';
import { gameIdMaxLength, gameIdMinLength } from '../manifest/manifest-schema.js';

/** `gameId` of every `/v1/games/:gameId` path; features spread it into their params schemas. */
export const GameIdParam = Type.String({ minLength: gameIdMinLength, maxLength: gameIdMaxLength, description: 'game id from the manifest' });

export const GameParams = Type.Object({ gameId: GameIdParam });
export type GameParams = Static<typeof GameParams>;
