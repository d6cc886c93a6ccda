import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '@playstack/server-kit';
import { gameIdMaxLength, gameIdMinLength, type GameDefinition } from '../manifest/manifest-schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The game of a `/v1/games/:gameId` request, set before validation and authentication. */
    game: GameDefinition;
  }
}

/** A feature's route plugin under `/v1/games/:gameId`; `request.game` is set in its handlers. */
export type GameFeature = FastifyPluginAsyncTypebox;

export interface GameScopeOptions {
  /** Route plugins registered under `/v1/games/:gameId`. */
  features: ReadonlyArray<GameFeature>;
}

/**
 * Everything under `/v1/games/:gameId`. The game is resolved in `onRequest`, before the body is
 * parsed, validated or authenticated, so an unknown game is 404 `game-not-found` on every path
 * whatever else is wrong with the request.
 */
export const gameScope: FastifyPluginAsyncTypebox<GameScopeOptions> = async (scope, { features }) => {
  // Set by the hook below; declared here so every request has the property from the start.
  scope.decorateRequest('game');
  // A callback hook: it runs on every game request, and an async one costs a promise and a microtask.
  scope.addHook('onRequest', (request, _reply, done) => {
    const { gameId } = request.params as { gameId?: string };
    if (gameId === undefined || gameId.length < gameIdMinLength || gameId.length > gameIdMaxLength) {
      done(new ApiError('invalid-request', `params.gameId must be ${gameIdMinLength} to ${gameIdMaxLength} characters long`));
      return;
    }
    try {
      request.game = scope.games.require(gameId);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  for (const feature of features) await scope.register(feature);
};
